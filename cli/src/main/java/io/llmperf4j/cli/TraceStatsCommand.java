package io.llmperf4j.cli;

import io.llmperf4j.datasets.DatasetFormatException;
import io.llmperf4j.datasets.trace.Trace;
import io.llmperf4j.datasets.trace.TraceStats;
import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.TokenizerOptions;
import io.llmperf4j.tokenize.TokenizerUnavailableException;
import io.llmperf4j.tokenize.Tokenizers;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.concurrent.Callable;

/** {@code trace-stats FORMAT:FILE}: what a trace asks of a server, before replaying it. */
@Command(name = "trace-stats",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        showDefaultValues = true,
        header = "Statistics of a request trace: ISL/OSL distributions, arrival rate over time, prefix-cache hit rate.",
        description = {
            "Reads a trace as token-benchmark --trace does (mooncake:FILE, azure:FILE or burstgpt:FILE) and prints",
            "its input and output length distributions, its arrival rate over time and the prefix-cache hit rate a",
            "server with an unbounded cache of the given block size would reach from its hash_ids (whole blocks",
            "within each prompt's first input_length - 1 tokens, as vLLM caches)."
        })
final class TraceStatsCommand implements Callable<Integer> {
    private final CliContext context;

    @Parameters(index = "0", paramLabel = "FORMAT:FILE", description = "mooncake:FILE, azure:FILE or burstgpt:FILE.")
    String trace;

    @Option(names = "--block-size", defaultValue = "512", paramLabel = "TOKENS",
            description = "The server's KV block size for the hit-rate prediction.")
    int blockSize;

    @Option(names = "--bucket", paramLabel = "SECONDS",
            description = "Width of the arrival-rate buckets (default: a twentieth of the trace's span).")
    Double bucketSeconds;

    @Option(names = "--trace-speedup", paramLabel = "X", defaultValue = "1",
            description = "As token-benchmark's: timestamps divided by X.")
    double speedup;

    @Option(names = "--trace-start", paramLabel = "SECONDS",
            description = "As token-benchmark's: the statistics of the replay from SECONDS into the (sped-up) trace.")
    Double start;

    @Option(names = "--trace-duration", paramLabel = "SECONDS",
            description = "As token-benchmark's: only the requests of the first SECONDS (from --trace-start).")
    Double duration;

    @Option(names = "--tokenizer", paramLabel = "SPEC", defaultValue = "llama-2",
            description = "Counts the input tokens of a Mooncake line's text_input (its prompt as it is), as "
                    + "token-benchmark's --tokenizer does; the other lines give their input_length.")
    String tokenizer;

    TraceStatsCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        CommonOptions.atLeast("--block-size", blockSize, 1);
        if (bucketSeconds != null && !(bucketSeconds > 0)) throw new UsageException("--bucket must be > 0");
        TraceReplay.checkWindow(start, duration);
        Trace t;
        try {
            // the slice the replay sends, so the prediction is the replay's (its cache starts cold at the window)
            t = Trace.load(trace).scaled(speedup, TraceReplay.seconds(start), TraceReplay.seconds(duration));
        } catch (DatasetFormatException | IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        if (t.hasTextInput()) {
            Tokenizer counter = textCounter();
            t = t.counted(counter::count);
            long texts = t.requests().stream().filter(r -> r.textInput() != null).count();
            context.err().println("llmperf4j: " + texts + (texts == 1 ? " request gives" : " requests give")
                    + " its text (text_input): input tokens counted with " + counter.id());
        }
        long bucketMs = bucketSeconds == null ? 0 : Math.max(1, Math.round(bucketSeconds * 1000));
        context.out().print(TraceStats.of(t, blockSize, bucketMs).render(t));
        return ExitCodes.OK;
    }

    private Tokenizer textCounter() {
        Tokenizer counter;
        try {
            counter = Tokenizers.resolve(tokenizer, TokenizerOptions.defaults());
        } catch (IllegalArgumentException | TokenizerUnavailableException e) {
            throw new UsageException("--tokenizer: " + e.getMessage());
        }
        if (Tokenizers.isServerUsageCounting(counter)) {
            throw new UsageException("--tokenizer server cannot count a text_input's tokens before a run: give "
                    + "a tokenizer (llama-2, a tokenizer.json, ORG/NAME)");
        }
        return counter;
    }
}

package io.llmperf4j.cli;

import io.llmperf4j.run.RunRequest;
import io.llmperf4j.run.Runner;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;

/**
 * llmperf's {@code token_benchmark_ray.py}: the same flags, types, defaults and environment variables, plus a few
 * of our own (marked "llmperf4j:" in the help).
 */
@Command(name = "token-benchmark",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        showDefaultValues = true,
        abbreviateSynopsis = true,
        headerHeading = "",
        header = "llmperf's token benchmark: TTFT, ITL, E2E and throughput of an endpoint.",
        description = {
            "Runs llmperf's token benchmark: prompts of normally distributed token length, closed loop at a fixed",
            "concurrency, llmperf's result files and printed block.",
            "",
            "The endpoint comes from OPENAI_API_BASE (e.g. http://host:8000/v1, llmperf's rule: '/chat/completions'",
            "is appended) and the key from OPENAI_API_KEY (any dummy value for local servers). With OPENAI_API_BASE",
            "unset, the embedded simulated server is started on a free loopback port and benchmarked instead."
        })
final class TokenBenchmarkCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    DebugOption debugOption;

    @Mixin
    CommonFlags common;

    @Option(names = "--mean-input-tokens", defaultValue = "550",
            description = "Mean prompt length in tokens (counted with the tokenizer, llmperf's way).")
    int meanInputTokens;

    @Option(names = "--stddev-input-tokens", defaultValue = "150",
            description = "Standard deviation of the prompt length in tokens.")
    int stddevInputTokens;

    @Option(names = "--mean-output-tokens", defaultValue = "150",
            description = "Mean of the sampled max_tokens.")
    int meanOutputTokens;

    @Option(names = "--stddev-output-tokens", defaultValue = "80",
            description = "Standard deviation of the sampled max_tokens (llmperf's code default is 80; "
                    + "its README examples use 10).")
    int stddevOutputTokens;

    @Option(names = "--max-num-completed-requests", defaultValue = "10",
            description = "Number of results to record (failed requests included); also the number of prompts "
                    + "generated. Exactly this many requests are sent, never more.")
    int maxNumCompletedRequests;

    @Mixin
    WorkloadFlags workload;

    @Option(names = "--no-stream-usage", negatable = false,
            description = "llmperf4j: do not send stream_options.include_usage (some servers reject it); "
                    + "server token counts are then not recorded.")
    boolean noStreamUsage;

    @Option(names = "--no-stream", negatable = false,
            description = "llmperf4j: send \"stream\": false and time the single JSON response (openai, "
                    + "openai-completions and anthropic). Without a stream there is no first token: TTFT is then the time to the "
                    + "complete response, equal to the end-to-end latency.")
    boolean noStream;

    @Option(names = "--embedding-batch-size", defaultValue = "1",
            description = "llmperf4j: inputs per request with --llm-api embeddings (each a workload prompt).")
    int embeddingBatchSize;

    @Mixin
    ConnectionFlags connection;

    @Mixin
    LoadFlags load;

    @Mixin
    ClusterFlags cluster;

    @Mixin
    ServerMetricsFlags serverMetrics;

    @ArgGroup(validate = false, heading = "%nService-level objectives and capacity search:%n")
    SearchFlags search = new SearchFlags();

    @Option(names = "--save-events",
            description = "llmperf4j: also write <base>_events.csv to --results-dir: one row per content event "
                    + "(request id, prompt index, event index, seconds from send, chars, tokens).")
    boolean saveEvents;

    @Option(names = "--no-client-warmup",
            description = "llmperf4j: skip warming the client's own code against a private in-process simulator "
                    + "before the run (about a second); without it a fresh JVM adds JIT time to the first requests' "
                    + "TTFT. The endpoint under test never sees warm-up traffic.")
    boolean noClientWarmup;

    @Option(names = "--max-error-rate", paramLabel = "PERCENT",
            description = "Exit 4 when more than PERCENT (0 to 100) of the requests failed, cancellations at the end "
                    + "included, e.g. 5 for a CI gate. Without it only a run where every request failed exits 4.")
    Double maxErrorRate;

    TokenBenchmarkCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        RunRequest request = TokenBenchmarkOptions.resolve(this, context);
        Runner runner = new Runner(context.out(), context.err());
        if (maxErrorRate != null) {
            runner.maxErrorRate(maxErrorRate);
        }
        return runner.run(request).exitCode();
    }
}

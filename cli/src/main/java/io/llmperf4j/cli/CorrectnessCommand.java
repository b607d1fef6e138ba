package io.llmperf4j.cli;

import io.llmperf4j.run.CommonSettings;
import io.llmperf4j.run.ResultsFolder;
import io.llmperf4j.run.Runner;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;

/**
 * llmperf's {@code llm_correctness.py}: the token benchmark's flags minus the four token-distribution flags, with its
 * defaults, the same environment variables (the help's first section), plus a seed and our connection flags.
 */
@Command(name = "correctness",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        showDefaultValues = true,
        headerHeading = "",
        header = "llmperf's correctness test: numbers in words back to digits.",
        description = {
            "Runs llmperf's correctness test: each request asks the model to turn a number",
            "between 0 and 10000, written out in words (\"one thousand, two hundred and",
            "thirty-four\"), back into digits, with temperature 0.0 and no max_tokens. An",
            "answer passes when the number is one of its runs of digits (commas between",
            "digits are ignored), is a mismatch otherwise, and an error when the request",
            "failed.",
            "",
            "The endpoint comes from OPENAI_API_BASE (e.g. http://host:8000/v1; llmperf's",
            "rule: '/chat/completions' is appended) and the key from OPENAI_API_KEY (any",
            "dummy value for local servers). With OPENAI_API_BASE unset, the embedded",
            "simulated server is tested instead; it answers with made-up words, so there",
            "every request is a mismatch. A run that sets OPENAI_API_KEY or names a --model",
            "then needs --simulator (a real server was probably meant)."
        })
final class CorrectnessCommand implements Callable<Integer> {
    private final CliContext context;

    @ArgGroup(validate = false, heading = "%nllmperf's flags (llm_correctness.py's names, types and defaults):%n")
    Llmperf llmperf = new Llmperf();

    @ArgGroup(validate = false, heading = "%nRepeatability and results:%n")
    Extra extra = new Extra();

    @ArgGroup(validate = false, heading = "%nConnection:%n")
    RunConnectionFlags connection = new RunConnectionFlags();

    @Mixin
    DebugOption debugOption;

    /** llm_correctness.py's flags: the shared ones, and its own request count. */
    static final class Llmperf {
        @ArgGroup(validate = false)
        CommonFlags common = new CommonFlags();

        @Option(names = "--max-num-completed-requests", defaultValue = "50", paramLabel = "N", order = 8,
                description = "Number of requests to send and check (failed requests included). Exactly this many "
                        + "are sent, each with its own number.")
        int maxNumCompletedRequests;
    }

    /** Ours: a seed llmperf lacks, and the results folder's guard. */
    static final class Extra {
        @Option(names = "--seed", paramLabel = "SEED", defaultValue = "11111",
                description = "Seed of the random numbers, so a run can be repeated (llmperf does not seed "
                        + "them: its numbers differ on every run).")
        long seed;

        @Option(names = "--overwrite",
                description = "Replace the results of an earlier run in --results-dir: the result files it wrote "
                        + "are set aside when this run starts and removed once it has written its own (put back if "
                        + "it writes none, or if every request failed, with this run's files in DIR/"
                        + ResultsFolder.FAILED_PREFIX + "<time>/). Without it, a folder that already holds results "
                        + "is refused.")
        boolean overwrite;
    }

    CorrectnessCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        // a correctness prompt is ~30 tokens and its answer a few words
        RunGuards.checkMemory(llmperf.maxNumCompletedRequests, 1, 30, 30, Runtime.getRuntime().maxMemory());
        CommonSettings options = CommonOptions.resolve(llmperf.common, llmperf.maxNumCompletedRequests, connection,
                extra.overwrite, CommonOptions.resultsDir(llmperf.common.resultsDir), context);
        int exitCode = new Runner(context.out(), context.err()).correctness(options, extra.seed).exitCode();
        SimulatorNotice.print(options, context.out());
        return exitCode;
    }
}

package io.llmperf4j.cli;

import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/**
 * token-benchmark's "llmperf's flags" section: token_benchmark_ray.py's flags with its names, types and defaults,
 * in its order (the shared ones come from {@link CommonFlags}).
 */
final class LlmperfBenchmarkFlags {
    @ArgGroup(validate = false)
    CommonFlags common = new CommonFlags();

    @Option(names = "--mean-input-tokens", defaultValue = "550", paramLabel = "N", order = 2,
            description = "Mean prompt length in tokens (counted with the tokenizer, llmperf's way).")
    int meanInputTokens;

    @Option(names = "--stddev-input-tokens", defaultValue = "150", paramLabel = "N", order = 3,
            description = "Standard deviation of the prompt length in tokens.")
    int stddevInputTokens;

    @Option(names = "--mean-output-tokens", defaultValue = "150", paramLabel = "N", order = 4,
            description = "Mean of the sampled max_tokens.")
    int meanOutputTokens;

    @Option(names = "--stddev-output-tokens", defaultValue = "80", paramLabel = "N", order = 5,
            description = "Standard deviation of the sampled max_tokens (llmperf's code default is 80; "
                    + "its README examples use 10).")
    int stddevOutputTokens;

    @Option(names = "--max-num-completed-requests", defaultValue = "10", paramLabel = "N", order = 8,
            description = "Number of results to record (failed requests included); also the number of prompts "
                    + "generated. Exactly this many measured requests are sent (per level in a sweep); before them the "
                    + "pre-run check sends one more request of one output token per model (not recorded; none to the "
                    + "embedded simulator; no flag skips it), so the server counts N+1.")
    int maxNumCompletedRequests;
}

package io.llmperf4j.cli;

import io.llmperf4j.run.ResultsFolder;
import picocli.CommandLine.Option;

/**
 * The flags llmperf's token_benchmark_ray.py and llm_correctness.py share, with their names, types and defaults
 * (--max-num-completed-requests is declared by each command: its default differs). A picocli mixin; checked by
 * {@link CommonOptions#resolve}.
 */
final class CommonFlags {
    static final String EMBEDDED_MODEL = "llmperf4j-sim";

    @Option(names = "--model", description = "The model field of each request; also used in file names. "
            + "Required with OPENAI_API_BASE; defaults to '" + EMBEDDED_MODEL + "' against the embedded server.")
    String model;

    @Option(names = "--num-concurrent-requests", defaultValue = "10",
            description = "Requests in flight at once (closed loop: each finished request is replaced at once).")
    int numConcurrentRequests;

    @Option(names = "--timeout", defaultValue = "90",
            description = "Run duration limit in seconds. Unlike llmperf, requests still in flight when it "
                    + "expires are cancelled and recorded as cancelled.")
    int timeoutSeconds;

    @Option(names = "--additional-sampling-params", defaultValue = "{}",
            description = "JSON object merged into each request body after llmperf's own sampling parameters "
                    + "(it may override them), e.g. '{\"temperature\": 0.7}'.")
    String additionalSamplingParams;

    @Option(names = "--results-dir", defaultValue = "",
            description = "Folder for the result files, created if missing. Empty: nothing is saved.")
    String resultsDir;

    @Option(names = "--overwrite",
            description = "llmperf4j: replace the results of an earlier run in --results-dir. Without it, a folder "
                    + "that already holds results (.json, .jsonl, .csv or .html files) is refused, so a rerun never "
                    + "loses a kept run; a folder another run is writing is always refused (lock file "
                    + ResultsFolder.LOCK_FILE + ").")
    boolean overwrite;

    @Option(names = "--llm-api", defaultValue = "openai",
            description = "Which API to call: openai (/chat/completions), openai-completions (/completions), "
                    + "anthropic (Messages API at ANTHROPIC_API_BASE + /messages, key ANTHROPIC_API_KEY), "
                    + "embeddings (/embeddings, token-benchmark only).")
    String llmApi;

    @Option(names = "--metadata", defaultValue = "",
            description = "Extra summary fields as k=v,k2=v2 (values stay strings).")
    String metadata;
}

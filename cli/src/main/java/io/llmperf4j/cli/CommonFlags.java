package io.llmperf4j.cli;

import picocli.CommandLine.Help;
import picocli.CommandLine.Option;

/**
 * The flags llmperf's token_benchmark_ray.py and llm_correctness.py share, with their names, types and defaults
 * (--max-num-completed-requests is declared by each command: its default differs). Nested in each command's
 * "llmperf's flags" section; {@code order} places them among the command's own llmperf flags as llmperf lists them.
 * Checked by {@link CommonOptions#resolve}.
 *
 * <p>Each default is also the field's initial value: picocli applies a nested group's defaults only when one of its
 * own options is given, and a section instance it creates for another option starts from these.
 */
final class CommonFlags {
    static final String EMBEDDED_MODEL = "llmperf4j-sim";

    @Option(names = "--model", paramLabel = "MODEL", order = 1, description = "The model field of each request; also used in file names. "
            + "Required with OPENAI_API_BASE; defaults to '" + EMBEDDED_MODEL + "' against the embedded server "
            + "(another name there needs --simulator).")
    String model;

    @Option(names = {"--num-concurrent-requests", "--concurrency"}, defaultValue = "10", paramLabel = "N", order = 6,
            description = "Requests in flight at once (closed loop: each finished request is replaced at once). "
                    + "--concurrency is the same flag under the name the other commands and tools use.")
    int numConcurrentRequests = 10;

    @Option(names = "--timeout", defaultValue = "90", paramLabel = "SECONDS", order = 7,
            description = "Run duration limit in seconds. Unlike llmperf, requests still in flight when it "
                    + "expires are cancelled and recorded as cancelled.")
    int timeoutSeconds = 90;

    @Option(names = "--additional-sampling-params", defaultValue = "{}", paramLabel = "JSON", order = 9,
            description = "JSON object merged into each request body after llmperf's own sampling parameters "
                    + "(it may override them), e.g. '{\"temperature\": 0.7}'.")
    String additionalSamplingParams = "{}";

    @Option(names = "--results-dir", defaultValue = "", paramLabel = "DIR", order = 10,
            showDefaultValue = Help.Visibility.NEVER,
            description = "Folder for the result files, created if missing. Empty: nothing is saved.")
    String resultsDir = "";

    @Option(names = "--llm-api", defaultValue = "openai", paramLabel = "API", order = 11,
            completionCandidates = CompletionValues.LlmApis.class,
            description = "Which API to call: openai (/chat/completions), openai-completions (/completions), "
                    + "anthropic (Messages API at ANTHROPIC_API_BASE + /messages, key ANTHROPIC_API_KEY), "
                    + "embeddings (/embeddings, token-benchmark only).")
    String llmApi = "openai";

    @Option(names = "--metadata", defaultValue = "", paramLabel = "K=V,...", order = 12,
            showDefaultValue = Help.Visibility.NEVER,
            description = "Extra summary fields as k=v,k2=v2 (values stay strings).")
    String metadata = "";
}

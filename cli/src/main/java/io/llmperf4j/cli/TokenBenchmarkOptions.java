package io.llmperf4j.cli;

import io.llmperf4j.report.metrics.Slo;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The token benchmark's inputs after validation: flags checked, environment read, JSON and metadata parsed.
 * Every problem is reported as a {@link UsageException} before anything is started or sent.
 */
record TokenBenchmarkOptions(
        Target target,
        String model,
        int meanInputTokens,
        int stddevInputTokens,
        int meanOutputTokens,
        int stddevOutputTokens,
        int numConcurrentRequests,
        int timeoutSeconds,
        int maxNumCompletedRequests,
        Map<String, Object> additionalSamplingParams,
        Path resultsDir,
        String llmApi,
        Map<String, String> metadata,
        Path tokenizer,
        String promptMode,
        Path corpus,
        long seed,
        boolean includeUsage,
        Duration idleTimeout,
        Map<String, String> extraHeaders,
        Path caCert,
        Slo slo) {

    static final String ENV_BASE = "OPENAI_API_BASE";
    static final String ENV_KEY = "OPENAI_API_KEY";
    private static final List<String> LLMPERF_ONLY_APIS = List.of("anthropic", "litellm", "sagemaker", "vertexai");

    /** Where requests go: an endpoint from the environment, or the embedded simulated server. */
    sealed interface Target permits Remote, Embedded {
    }

    /** An endpoint from OPENAI_API_BASE; the key is kept out of toString. */
    record Remote(String apiBase, String apiKey) implements Target {
        @Override
        public String toString() {
            return "Remote[" + apiBase + "]";
        }
    }

    record Embedded() implements Target {
    }

    static TokenBenchmarkOptions resolve(TokenBenchmarkCommand c, CliContext context) {
        atLeast("--mean-input-tokens", c.meanInputTokens, 1);
        atLeast("--stddev-input-tokens", c.stddevInputTokens, 0);
        atLeast("--mean-output-tokens", c.meanOutputTokens, 1);
        atLeast("--stddev-output-tokens", c.stddevOutputTokens, 0);
        atLeast("--num-concurrent-requests", c.numConcurrentRequests, 1);
        atLeast("--timeout", c.timeoutSeconds, 1);
        atLeast("--max-num-completed-requests", c.maxNumCompletedRequests, 1);
        atLeast("--idle-timeout", c.idleTimeoutSeconds, 1);
        checkLlmApi(c.llmApi);
        if (!c.promptMode.equals("llmperf") && !c.promptMode.equals("exact")) {
            throw new UsageException("--prompt-mode must be 'llmperf' or 'exact' (got '" + c.promptMode + "')");
        }
        requireReadable("--corpus", c.corpus);
        if (c.tokenizer != null && !Files.exists(c.tokenizer)) {
            throw new UsageException("--tokenizer " + c.tokenizer + " does not exist "
                    + "(give a tokenizer.json or a folder holding one)");
        }
        Map<String, Object> samplingParams = SamplingParamsParser.parse(c.additionalSamplingParams);
        Map<String, String> metadata = MetadataParser.parse(c.metadata);
        requireReadable("--ca-cert", c.caCert);
        Map<String, String> headers = parseHeaders(c.headers);
        Target target = target(context, c.apiKeyFile);
        String model = c.model;
        if (model == null || model.isBlank()) {
            if (target instanceof Remote) {
                throw new UsageException("--model is required when OPENAI_API_BASE is set");
            }
            model = TokenBenchmarkCommand.EMBEDDED_MODEL;
        }
        Path resultsDir = c.resultsDir.isEmpty() ? null : Path.of(c.resultsDir);
        return new TokenBenchmarkOptions(target, model, c.meanInputTokens, c.stddevInputTokens,
                c.meanOutputTokens, c.stddevOutputTokens, c.numConcurrentRequests, c.timeoutSeconds,
                c.maxNumCompletedRequests, samplingParams, resultsDir, c.llmApi, metadata, c.tokenizer,
                c.promptMode, c.corpus, c.seed, !c.noStreamUsage, Duration.ofSeconds(c.idleTimeoutSeconds), headers,
                c.caCert, parseSlo(c.slo));
    }

    private static Target target(CliContext context, Path apiKeyFile) {
        String base = context.env(ENV_BASE);
        if (base == null) {
            return new Embedded();
        }
        if (base.isBlank()) {
            throw new UsageException(ENV_BASE + " is set but empty; set it to the server's base URL such as "
                    + "http://localhost:8000/v1, or unset it to benchmark the embedded simulated server");
        }
        String key = apiKeyFile != null ? ApiKeyFile.read(apiKeyFile) : context.env(ENV_KEY);
        if (key == null || key.isBlank()) {
            throw new UsageException(ENV_KEY + " is not set (or pass --api-key-file); llmperf requires it with " + ENV_BASE
                    + " (for local servers any dummy value works, e.g. " + ENV_KEY + "=EMPTY)");
        }
        return new Remote(base.strip(), key);
    }

    private static Slo parseSlo(String text) {
        if (text == null) {
            return null;
        }
        try {
            return Slo.parse(text);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--slo: " + e.getMessage());
        }
    }

    private static Map<String, String> parseHeaders(List<String> headers) {
        Map<String, String> parsed = new LinkedHashMap<>();
        for (String header : headers) {
            int colon = header.indexOf(':');
            String name = colon < 0 ? "" : header.substring(0, colon).strip();
            if (name.isEmpty() || !name.chars().allMatch(ch -> ch > 32 && ch < 127 && ch != ':')) {
                throw new UsageException("--header must look like 'Name: value' (got a header without a valid name)");
            }
            parsed.put(name, header.substring(colon + 1).strip());
        }
        return parsed;
    }

    private static void checkLlmApi(String llmApi) {
        if (llmApi.equals("openai")) {
            return;
        }
        if (LLMPERF_ONLY_APIS.contains(llmApi)) {
            throw new UsageException("--llm-api " + llmApi + " is not supported yet; supported: openai");
        }
        throw new UsageException("unknown --llm-api '" + llmApi + "'; supported: openai");
    }

    private static void atLeast(String option, int value, int minimum) {
        if (value < minimum) {
            throw new UsageException(option + " (" + value + ") must be >= " + minimum);
        }
    }

    private static void requireReadable(String option, Path file) {
        if (file != null && !Files.isRegularFile(file)) {
            throw new UsageException(option + " " + file + " is not a readable file");
        }
    }
}

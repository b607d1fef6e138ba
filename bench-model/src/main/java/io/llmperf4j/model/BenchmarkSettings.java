package io.llmperf4j.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The parameters of a token benchmark run, as the user gave them; echoed into every result file.
 * Made with {@link #builder()}, or {@link #toBuilder()} for a copy with some components changed: by name, since a
 * positional call of 19 ints, Strings and Booleans side by side swaps two of them without a compile error.
 *
 * @param model                    the {@code model} field sent and used in file names
 * @param meanInputTokens          llmperf's --mean-input-tokens
 * @param stddevInputTokens        llmperf's --stddev-input-tokens
 * @param meanOutputTokens         llmperf's --mean-output-tokens
 * @param stddevOutputTokens       llmperf's --stddev-output-tokens
 * @param numConcurrentRequests    requests in flight at once (closed loop)
 * @param timeoutSeconds           run duration limit
 * @param maxNumCompletedRequests  number of results to record
 * @param additionalSamplingParams parsed --additional-sampling-params, keys in the user's order; values are
 *                                 JSON values as Java objects (Map, List, String, Number, Boolean, null)
 * @param llmApi                   the --llm-api value
 * @param metadata                 --metadata pairs in order
 * @param endpoint                 the target URL without credentials
 * @param tokenizer                what counted tokens (for example "llama-2 (built in)")
 * @param promptMode               "llmperf" or "exact"
 * @param seed                     the workload seed
 * @param stream                   false for {@code --no-stream} (each response in one piece), true for a streamed run;
 *                                 null when not recorded
 * @param connectionMode           when connections open ({@code --connection-mode}: {@code preconnect},
 *                                 {@code on-demand}, {@code per-request}); null when not recorded
 * @param simulated                true when the requests went to llmperf4j's embedded simulated server (no base
 *                                 variable), false for a real endpoint; null when not recorded. The model name and
 *                                 endpoint alone do not tell: a simulator run may carry a real model's name
 * @param inputTokensTokenizer     the tokenizer that counted the requests' input tokens when it is not {@code
 *                                 tokenizer}'s (a --workload manifest counted by another tokenizer than the run's:
 *                                 its counts are kept, the outputs counted by the run's); null otherwise
 */
public record BenchmarkSettings(
        String model,
        int meanInputTokens,
        int stddevInputTokens,
        int meanOutputTokens,
        int stddevOutputTokens,
        int numConcurrentRequests,
        int timeoutSeconds,
        int maxNumCompletedRequests,
        Map<String, Object> additionalSamplingParams,
        String llmApi,
        Map<String, String> metadata,
        String endpoint,
        String tokenizer,
        String promptMode,
        long seed,
        Boolean stream,
        String connectionMode,
        Boolean simulated,
        String inputTokensTokenizer) {

    public BenchmarkSettings {
        Objects.requireNonNull(model, "model");
        additionalSamplingParams = Collections.unmodifiableMap(new LinkedHashMap<>(
                additionalSamplingParams == null ? Map.of() : additionalSamplingParams));
        metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata == null ? Map.of() : metadata));
    }

    /** An empty builder: every component unset (null, 0 for numbers) until given. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these settings, to copy them with some components changed. */
    public Builder toBuilder() {
        return new Builder()
                .model(model)
                .meanInputTokens(meanInputTokens)
                .stddevInputTokens(stddevInputTokens)
                .meanOutputTokens(meanOutputTokens)
                .stddevOutputTokens(stddevOutputTokens)
                .numConcurrentRequests(numConcurrentRequests)
                .timeoutSeconds(timeoutSeconds)
                .maxNumCompletedRequests(maxNumCompletedRequests)
                .additionalSamplingParams(additionalSamplingParams)
                .llmApi(llmApi)
                .metadata(metadata)
                .endpoint(endpoint)
                .tokenizer(tokenizer)
                .promptMode(promptMode)
                .seed(seed)
                .stream(stream)
                .connectionMode(connectionMode)
                .simulated(simulated)
                .inputTokensTokenizer(inputTokensTokenizer);
    }

    /**
     * Builds settings by component name, so that the many ints and Strings cannot be swapped silently as in a
     * positional call. A component not given stays null (0 for a number): "not recorded".
     */
    public static final class Builder {
        private String model;
        private int meanInputTokens;
        private int stddevInputTokens;
        private int meanOutputTokens;
        private int stddevOutputTokens;
        private int numConcurrentRequests;
        private int timeoutSeconds;
        private int maxNumCompletedRequests;
        private Map<String, Object> additionalSamplingParams;
        private String llmApi;
        private Map<String, String> metadata;
        private String endpoint;
        private String tokenizer;
        private String promptMode;
        private long seed;
        private Boolean stream;
        private String connectionMode;
        private Boolean simulated;
        private String inputTokensTokenizer;

        private Builder() {
        }

        public Builder model(String model) {
            this.model = model;
            return this;
        }

        public Builder meanInputTokens(int meanInputTokens) {
            this.meanInputTokens = meanInputTokens;
            return this;
        }

        public Builder stddevInputTokens(int stddevInputTokens) {
            this.stddevInputTokens = stddevInputTokens;
            return this;
        }

        public Builder meanOutputTokens(int meanOutputTokens) {
            this.meanOutputTokens = meanOutputTokens;
            return this;
        }

        public Builder stddevOutputTokens(int stddevOutputTokens) {
            this.stddevOutputTokens = stddevOutputTokens;
            return this;
        }

        public Builder numConcurrentRequests(int numConcurrentRequests) {
            this.numConcurrentRequests = numConcurrentRequests;
            return this;
        }

        public Builder timeoutSeconds(int timeoutSeconds) {
            this.timeoutSeconds = timeoutSeconds;
            return this;
        }

        public Builder maxNumCompletedRequests(int maxNumCompletedRequests) {
            this.maxNumCompletedRequests = maxNumCompletedRequests;
            return this;
        }

        public Builder additionalSamplingParams(Map<String, Object> additionalSamplingParams) {
            this.additionalSamplingParams = additionalSamplingParams;
            return this;
        }

        public Builder llmApi(String llmApi) {
            this.llmApi = llmApi;
            return this;
        }

        public Builder metadata(Map<String, String> metadata) {
            this.metadata = metadata;
            return this;
        }

        public Builder endpoint(String endpoint) {
            this.endpoint = endpoint;
            return this;
        }

        public Builder tokenizer(String tokenizer) {
            this.tokenizer = tokenizer;
            return this;
        }

        public Builder promptMode(String promptMode) {
            this.promptMode = promptMode;
            return this;
        }

        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        public Builder stream(Boolean stream) {
            this.stream = stream;
            return this;
        }

        public Builder connectionMode(String connectionMode) {
            this.connectionMode = connectionMode;
            return this;
        }

        public Builder simulated(Boolean simulated) {
            this.simulated = simulated;
            return this;
        }

        public Builder inputTokensTokenizer(String inputTokensTokenizer) {
            this.inputTokensTokenizer = inputTokensTokenizer;
            return this;
        }

        public BenchmarkSettings build() {
            return new BenchmarkSettings(model, meanInputTokens, stddevInputTokens, meanOutputTokens,
                    stddevOutputTokens, numConcurrentRequests, timeoutSeconds, maxNumCompletedRequests,
                    additionalSamplingParams, llmApi, metadata, endpoint, tokenizer, promptMode, seed, stream,
                    connectionMode, simulated, inputTokensTokenizer);
        }
    }
}

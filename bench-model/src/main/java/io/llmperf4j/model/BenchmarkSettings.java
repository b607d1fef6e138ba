package io.llmperf4j.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The parameters of a token benchmark run, as the user gave them; echoed into every result file.
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

    /** Settings whose input tokens were counted by {@code tokenizer}, as their outputs. */
    public BenchmarkSettings(String model, int meanInputTokens, int stddevInputTokens, int meanOutputTokens,
                             int stddevOutputTokens, int numConcurrentRequests, int timeoutSeconds,
                             int maxNumCompletedRequests, Map<String, Object> additionalSamplingParams, String llmApi,
                             Map<String, String> metadata, String endpoint, String tokenizer, String promptMode,
                             long seed, Boolean stream, String connectionMode, Boolean simulated) {
        this(model, meanInputTokens, stddevInputTokens, meanOutputTokens, stddevOutputTokens, numConcurrentRequests,
                timeoutSeconds, maxNumCompletedRequests, additionalSamplingParams, llmApi, metadata, endpoint,
                tokenizer, promptMode, seed, stream, connectionMode, simulated, null);
    }

    /** Settings without whether the endpoint was the embedded simulated server (not recorded). */
    public BenchmarkSettings(String model, int meanInputTokens, int stddevInputTokens, int meanOutputTokens,
                             int stddevOutputTokens, int numConcurrentRequests, int timeoutSeconds,
                             int maxNumCompletedRequests, Map<String, Object> additionalSamplingParams, String llmApi,
                             Map<String, String> metadata, String endpoint, String tokenizer, String promptMode,
                             long seed, Boolean stream, String connectionMode) {
        this(model, meanInputTokens, stddevInputTokens, meanOutputTokens, stddevOutputTokens, numConcurrentRequests,
                timeoutSeconds, maxNumCompletedRequests, additionalSamplingParams, llmApi, metadata, endpoint,
                tokenizer, promptMode, seed, stream, connectionMode, null);
    }

    /** Settings without the client's streaming and connection mode (not recorded). */
    public BenchmarkSettings(String model, int meanInputTokens, int stddevInputTokens, int meanOutputTokens,
                             int stddevOutputTokens, int numConcurrentRequests, int timeoutSeconds,
                             int maxNumCompletedRequests, Map<String, Object> additionalSamplingParams, String llmApi,
                             Map<String, String> metadata, String endpoint, String tokenizer, String promptMode,
                             long seed) {
        this(model, meanInputTokens, stddevInputTokens, meanOutputTokens, stddevOutputTokens, numConcurrentRequests,
                timeoutSeconds, maxNumCompletedRequests, additionalSamplingParams, llmApi, metadata, endpoint,
                tokenizer, promptMode, seed, null, null, null);
    }

    public BenchmarkSettings {
        Objects.requireNonNull(model, "model");
        additionalSamplingParams = Collections.unmodifiableMap(new LinkedHashMap<>(
                additionalSamplingParams == null ? Map.of() : additionalSamplingParams));
        metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata == null ? Map.of() : metadata));
    }
}

package io.llmperf4j.report.correctness;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a correctness run was asked to do, as the user gave it; echoed into its summary and request configs.
 *
 * @param model                    the {@code model} field sent; also the file names' base
 * @param numConcurrentRequests    requests in flight at once
 * @param additionalSamplingParams parsed --additional-sampling-params, in the user's order (JSON values as Java
 *                                 objects)
 * @param llmApi                   the --llm-api value
 * @param metadata                 --metadata pairs in order
 */
public record CorrectnessSettings(
        String model,
        int numConcurrentRequests,
        Map<String, Object> additionalSamplingParams,
        String llmApi,
        Map<String, String> metadata) {

    /** llmperf's base sampling params for the correctness test. */
    public static final double TEMPERATURE = 0.0;

    public CorrectnessSettings {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(llmApi, "llmApi");
        additionalSamplingParams = Collections.unmodifiableMap(new LinkedHashMap<>(
                additionalSamplingParams == null ? Map.of() : additionalSamplingParams));
        metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata == null ? Map.of() : metadata));
    }

    /**
     * What each request sends after {@code model}, {@code messages} and {@code stream}: {@code {"temperature": 0.0}}
     * updated with the additional params (dict.update: they may override the temperature).
     */
    public Map<String, Object> samplingParams() {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("temperature", TEMPERATURE);
        params.putAll(additionalSamplingParams);
        return Collections.unmodifiableMap(params);
    }
}

package io.llmperf4j.datasets;

import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.Tokenizer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One prompt sent again and again, as the concurrency-sweep script does ({@code --prompt TEXT --max-tokens N}).
 * Draws nothing: the seed is recorded as 0.
 */
public final class FixedPrompt {
    /** The source id of workloads made here (the prompt itself is in every request). */
    public static final String SOURCE_ID = "prompt";

    private FixedPrompt() {
    }

    /**
     * {@code count} requests of {@code prompt} with {@code max_tokens} = {@code maxTokens}; numberInputTokens is
     * {@code tokenizer.count(prompt)}.
     *
     * @throws IllegalArgumentException for an empty prompt, {@code maxTokens < 1} or {@code count < 0}
     */
    public static Workload workload(String prompt, int maxTokens, int count, Tokenizer tokenizer) {
        return workload(Workload.FIXED, SOURCE_ID, prompt, maxTokens, count, tokenizer, new LinkedHashMap<>());
    }

    static Workload workload(String kind, String sourceId, String prompt, int maxTokens, int count,
                             Tokenizer tokenizer, Map<String, Object> generation) {
        Workload.requireEncoding(tokenizer);
        if (prompt == null || prompt.isEmpty()) throw new IllegalArgumentException("the prompt is empty");
        if (maxTokens < 1) throw new IllegalArgumentException("max tokens (" + maxTokens + ") must be >= 1");
        if (count < 0) throw new IllegalArgumentException("request count (" + count + ") must be >= 0");
        int tokens = tokenizer.count(prompt);
        List<RequestSpec> requests = new ArrayList<>(count);
        for (int i = 0; i < count; i++) requests.add(new RequestSpec(i, prompt, tokens, maxTokens));
        generation.put("max_tokens", maxTokens);
        generation.put("request_count", count);
        return new Workload(kind, sourceId, Hashing.sha256Hex(prompt.getBytes(StandardCharsets.UTF_8)),
                tokenizer.id(), 0, generation, requests);
    }
}

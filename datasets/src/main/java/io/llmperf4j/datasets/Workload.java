package io.llmperf4j.datasets;

import io.llmperf4j.datasets.manifest.ManifestHeader;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.ServerUsageCounting;
import io.llmperf4j.tokenize.Tokenizer;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The requests of a run and what produced them, enough to write a replayable manifest
 * ({@link #manifestHeader}). Every source here is deterministic: the same inputs, tokenizer and seed give equal
 * workloads.
 *
 * @param kind         the source kind: {@value #SYNTHETIC}, {@value #SHAREGPT}, {@value #PROMPTS}, {@value #FIXED}
 *                     or {@value #SCENARIO}
 * @param sourceId     the corpus id, the dataset file's absolute path, or a scenario name
 * @param sourceSha256 lowercase hex SHA-256 of the source (corpus lines, file bytes, or fixed prompt text)
 * @param tokenizerId  {@link Tokenizer#id()} of the tokenizer that counted {@code numberInputTokens}
 * @param seed         the seed the workload was drawn with (0 for sources that draw nothing)
 * @param generation   how the requests were made (distributions, filters, counts), keys in a fixed order
 * @param requests     the requests, indexed 0..n-1
 */
public record Workload(String kind, String sourceId, String sourceSha256, String tokenizerId, long seed,
                       Map<String, Object> generation, List<RequestSpec> requests) {
    public static final String SYNTHETIC = "synthetic";
    public static final String SHAREGPT = "sharegpt";
    public static final String PROMPTS = "prompts";
    public static final String FIXED = "fixed";
    public static final String SCENARIO = "scenario";

    public Workload {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(sourceId, "sourceId");
        Objects.requireNonNull(tokenizerId, "tokenizerId");
        generation = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(generation, "generation")));
        requests = List.copyOf(requests);
        for (int i = 0; i < requests.size(); i++) {
            if (requests.get(i).index() != i) {
                throw new IllegalArgumentException("request " + i + " has index " + requests.get(i).index());
            }
        }
    }

    /** The manifest header for these requests, with the sampling params the run sends (may be empty). */
    public ManifestHeader manifestHeader(Map<String, Object> samplingParams) {
        return new ManifestHeader(kind, tokenizerId, seed, sourceId, sourceSha256, generation,
                samplingParams == null ? Map.of() : samplingParams);
    }

    /** A copy with other requests and extra generation entries (appended in order). */
    Workload with(List<RequestSpec> newRequests, Map<String, Object> extraGeneration) {
        Map<String, Object> merged = new LinkedHashMap<>(generation);
        merged.putAll(extraGeneration);
        return new Workload(kind, sourceId, sourceSha256, tokenizerId, seed, merged, newRequests);
    }

    /** Workloads count prompt tokens: the {@code server} marker cannot. */
    static Tokenizer requireEncoding(Tokenizer tokenizer) {
        Objects.requireNonNull(tokenizer, "tokenizer");
        if (tokenizer instanceof ServerUsageCounting) {
            throw new IllegalArgumentException("Building a workload needs a tokenizer that can count prompt tokens; '"
                    + ServerUsageCounting.SPEC + "' only reads the server's usage counts. Use llama-2, a tokenizer.json "
                    + "or an OpenAI encoding for the workload");
        }
        return tokenizer;
    }
}

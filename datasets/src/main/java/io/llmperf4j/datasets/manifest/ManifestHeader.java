package io.llmperf4j.datasets.manifest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The first line of a workload manifest: what made the requests, so two runs can be shown to have sent the same
 * ones. Maps keep their key order; their values are JSON values as Jackson reads them (String, Integer, Long,
 * BigInteger, Double, Boolean, null, List, Map), normalized on construction by a JSON round trip, so a header read
 * back from a file equals the one written.
 *
 * @param kind           the workload source kind (e.g. "synthetic", "sharegpt")
 * @param tokenizer      the id of the tokenizer that counted the input tokens
 * @param seed           the seed the workload was drawn with
 * @param source         the corpus id, dataset path or scenario name
 * @param sourceSha256   hex SHA-256 of the source, or {@code null} when there is none
 * @param generation     generation parameters (distributions, filters, counts)
 * @param samplingParams the sampling params sent with every request ({@code temperature}, ...), possibly empty
 */
public record ManifestHeader(String kind, String tokenizer, long seed, String source, String sourceSha256,
                             Map<String, Object> generation, Map<String, Object> samplingParams) {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final TypeReference<LinkedHashMap<String, Object>> MAP = new TypeReference<>() {
    };

    public ManifestHeader {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(tokenizer, "tokenizer");
        Objects.requireNonNull(source, "source");
        generation = normalize(generation, "generation");
        samplingParams = normalize(samplingParams, "samplingParams");
    }

    private static Map<String, Object> normalize(Map<String, Object> map, String name) {
        Objects.requireNonNull(map, name);
        try {
            return Collections.unmodifiableMap(MAPPER.readValue(MAPPER.writeValueAsBytes(map), MAP));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(name + " cannot be written as JSON: " + e.getOriginalMessage(), e);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}

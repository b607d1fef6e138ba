package io.llmperf4j.model;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The builder sets each component by its name, leaves the ones not given unrecorded, and copies all of them. */
class BenchmarkSettingsBuilderTest {

    /** Every component a different value, so that one given to another's setter shows. */
    private static BenchmarkSettings full() {
        Map<String, Object> sampling = new LinkedHashMap<>();
        sampling.put("temperature", 0.7);
        sampling.put("top_p", 0.9);
        return new BenchmarkSettings("m", 1, 2, 3, 4, 5, 6, 7, sampling, "openai", Map.of("k", "v"), "http://e",
                "tok", "exact", 8L, true, "preconnect", false, "in-tok");
    }

    @Test
    void eachSetterGivesItsOwnComponent() {
        BenchmarkSettings built = BenchmarkSettings.builder()
                .model("m")
                .meanInputTokens(1)
                .stddevInputTokens(2)
                .meanOutputTokens(3)
                .stddevOutputTokens(4)
                .numConcurrentRequests(5)
                .timeoutSeconds(6)
                .maxNumCompletedRequests(7)
                .additionalSamplingParams(full().additionalSamplingParams())
                .llmApi("openai")
                .metadata(Map.of("k", "v"))
                .endpoint("http://e")
                .tokenizer("tok")
                .promptMode("exact")
                .seed(8L)
                .stream(true)
                .connectionMode("preconnect")
                .simulated(false)
                .inputTokensTokenizer("in-tok")
                .build();
        assertEquals(full(), built);
        assertEquals(List.of("temperature", "top_p"), List.copyOf(built.additionalSamplingParams().keySet()));
    }

    @Test
    void componentsNotGivenAreNotRecorded() {
        BenchmarkSettings built = BenchmarkSettings.builder().model("m").seed(3L).build();
        assertEquals(new BenchmarkSettings("m", 0, 0, 0, 0, 0, 0, 0, null, null, null, null, null, null, 3L, null,
                null, null, null), built);
        assertNull(built.stream());
        assertNull(built.connectionMode());
        assertNull(built.simulated());
        assertNull(built.inputTokensTokenizer());
        assertEquals(Map.of(), built.metadata());
        assertEquals(Map.of(), built.additionalSamplingParams());
    }

    @Test
    void toBuilderCopiesEveryComponentAndChangesOnlyThoseGiven() {
        BenchmarkSettings s = full();
        assertEquals(s, s.toBuilder().build());
        BenchmarkSettings level = s.toBuilder().numConcurrentRequests(9).build();
        assertNotEquals(s, level);
        assertEquals(9, level.numConcurrentRequests());
        assertEquals(new BenchmarkSettings("m", 1, 2, 3, 4, 9, 6, 7, s.additionalSamplingParams(), "openai",
                Map.of("k", "v"), "http://e", "tok", "exact", 8L, true, "preconnect", false, "in-tok"), level);
    }

    @Test
    void theModelIsStillRequired() {
        assertThrows(NullPointerException.class, () -> BenchmarkSettings.builder().seed(1L).build());
    }
}

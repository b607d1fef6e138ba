package io.llmperf4j.datasets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.Tokenizers;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScenarioTest {
    private final Tokenizer cl100k = Tokenizers.jtokkit("cl100k_base");

    @Test
    void theGuidesMatrix() {
        assertEquals(List.of(16, 64, 512, 2048), List.of(Scenario.values()).stream().map(Scenario::maxTokens).toList());
        assertEquals(List.of("T1", "T2", "T3", "T4"), List.of(Scenario.values()).stream().map(Scenario::id).toList());
        assertEquals(List.of("TTFT baseline", "Real-time chat", "Main comparison", "Long generation"),
                List.of(Scenario.values()).stream().map(Scenario::title).toList());
        for (Language language : Language.values()) {
            assertEquals(Scenario.T3.prompt(language), Scenario.T4.prompt(language), "T4 changes only max_tokens");
            assertNotEquals(Scenario.T1.prompt(language), Scenario.T2.prompt(language));
        }
        assertTrue(Scenario.T1.prompt(Language.EN).startsWith("Hi there!"));
        assertTrue(Scenario.T2.prompt(Language.EN).startsWith("In one sentence, summarize"));
        assertTrue(Scenario.T3.prompt(Language.EN).contains("artificial intelligence is used in the manufacturing industry"));
        assertTrue(Scenario.T3.prompt(Language.ZH).startsWith("请详细介绍人工智能在制造业中的应用"));
        assertEquals(List.of(1, 5, 10, 20, 50), Scenario.GUIDE_CONCURRENCY_SWEEP);
        assertEquals(50, Scenario.GUIDE_REQUESTS);
    }

    @Test
    void promptLengthsGrowFromT1ToT3() {
        // cl100k_base counts (no BOS)
        assertEquals(List.of(9, 14, 58, 58), counts(Language.EN, cl100k));
        assertEquals(List.of(12, 33, 109, 109), counts(Language.ZH, cl100k));
        assumeTrue(Tokenizers.builtInLlama2Available());
        Tokenizer llama = Tokenizers.builtInLlama2();
        assertEquals(List.of(10, 16, 65, 65), counts(Language.EN, llama));
        assertEquals(List.of(15, 40, 146, 146), counts(Language.ZH, llama));
    }

    @Test
    void aScenarioWorkloadRepeatsItsPrompt() {
        Workload workload = Scenario.T3.workload(Language.EN, 50, cl100k);
        assertEquals(50, workload.requests().size());
        assertEquals(new RequestSpec(49, Scenario.T3.prompt(Language.EN), 58, 512), workload.requests().get(49));
        assertEquals(Workload.SCENARIO, workload.kind());
        assertEquals("scenario:T3:en", workload.sourceId());
        assertEquals(Hashing.sha256Hex(Scenario.T3.prompt(Language.EN).getBytes(StandardCharsets.UTF_8)), workload.sourceSha256());
        assertEquals(List.of("scenario", "title", "language", "max_tokens", "request_count"),
                List.copyOf(workload.generation().keySet()));
        assertEquals("zh", Scenario.T4.workload(Language.ZH, 1, cl100k).generation().get("language"));
    }

    @Test
    void aFixedPromptIsRepeated() {
        Workload workload = FixedPrompt.workload("Hello world", 128, 3, cl100k);
        assertEquals(List.of(new RequestSpec(0, "Hello world", 2, 128), new RequestSpec(1, "Hello world", 2, 128),
                new RequestSpec(2, "Hello world", 2, 128)), workload.requests());
        assertEquals(Map.of("max_tokens", 128, "request_count", 3), workload.generation());
        assertEquals(Workload.FIXED, workload.kind());
        assertEquals(0, workload.seed());
        assertEquals("the prompt is empty",
                assertThrows(IllegalArgumentException.class, () -> FixedPrompt.workload("", 1, 1, cl100k)).getMessage());
        assertEquals("max tokens (0) must be >= 1",
                assertThrows(IllegalArgumentException.class, () -> FixedPrompt.workload("x", 0, 1, cl100k)).getMessage());
    }

    @Test
    void parsesIdsSlugsAndLanguages() {
        assertEquals(Scenario.T2, Scenario.parse("t2"));
        assertEquals(Scenario.T4, Scenario.parse("long-generation"));
        assertEquals(Language.ZH, Language.parse(" ZH "));
        assertEquals("Unknown scenario 'T5'; use one of T1 (ttft-baseline, max_tokens 16), T2 (realtime-chat, "
                + "max_tokens 64), T3 (main-comparison, max_tokens 512), T4 (long-generation, max_tokens 2048)",
                assertThrows(IllegalArgumentException.class, () -> Scenario.parse("T5")).getMessage());
        assertEquals("Unknown language 'fr'; use en or zh",
                assertThrows(IllegalArgumentException.class, () -> Language.parse("fr")).getMessage());
    }

    private static List<Integer> counts(Language language, Tokenizer tokenizer) {
        return List.of(Scenario.values()).stream().map(s -> tokenizer.count(s.prompt(language))).toList();
    }
}

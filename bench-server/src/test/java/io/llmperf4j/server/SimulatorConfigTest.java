package io.llmperf4j.server;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SimulatorConfigTest {

    @Test
    void defaults() {
        SimulatorConfig config = SimulatorConfig.defaults();
        assertEquals("127.0.0.1", config.host());
        assertEquals(0, config.port());
        assertEquals(Duration.ofMillis(50), config.timeToFirstToken());
        assertEquals(Duration.ofMillis(10), config.interTokenDelay());
        assertEquals(1, config.tokensPerChunk());
        assertEquals(64, config.maxConcurrentSequences());
        assertEquals(Duration.ZERO, config.prefillPerPromptToken());
        assertEquals(List.of("llmperf4j-sim"), config.modelIds());
        assertTrue(config.acceptAnyModel());
        assertNull(config.apiKey());
        assertNull(config.promptTokenCounter());
        assertEquals(256, config.defaultMaxTokens());
        assertEquals(FaultPlan.none(), config.faultPlan());
        assertTrue(config.faultPlan().isNone());
        assertEquals(EarlyStop.none(), config.earlyStop());
        assertEquals(0, config.reasoningTokens());
        assertEquals(384, config.embeddings().dimensions());
        assertEquals(2048, config.embeddings().maxBatchSize());
        assertEquals(SimulatorConfig.defaults(), config.toBuilder().build());
        SimulatorConfig custom = SimulatorConfig.builder().faultPlan(FaultPlan.random(0.1, 3))
                .earlyStop(EarlyStop.naturalLength(9)).reasoningTokens(4).build();
        assertEquals(custom, custom.toBuilder().build(), "toBuilder keeps every value");
    }

    @Test
    void invalidValuesNameTheValueAndTheRule() {
        assertMessage("tokensPerChunk (0) must be >= 1", SimulatorConfig.builder().tokensPerChunk(0));
        assertMessage("maxConcurrentSequences (0) must be >= 1", SimulatorConfig.builder().maxConcurrentSequences(0));
        assertMessage("interTokenDelay (PT-0.001S) must be >= 0",
                SimulatorConfig.builder().interTokenDelay(Duration.ofMillis(-1)));
        assertMessage("timeToFirstToken (PT-1S) must be >= 0",
                SimulatorConfig.builder().timeToFirstToken(Duration.ofSeconds(-1)));
        assertMessage("port (70000) must be between 0 and 65535", SimulatorConfig.builder().port(70000));
        assertMessage("defaultMaxTokens (0) must be >= 1", SimulatorConfig.builder().defaultMaxTokens(0));
        assertMessage("defaultMaxTokens (1000001) must be <= 1000000",
                SimulatorConfig.builder().defaultMaxTokens(1_000_001));
        assertMessage("prefillPerPromptToken (PT25H) must be <= PT24H",
                SimulatorConfig.builder().prefillPerPromptToken(Duration.ofHours(25)));
        assertMessage("modelIds must not be empty", SimulatorConfig.builder().modelIds(List.of()));
        assertMessage("apiKey must not be blank (use null for no authentication)",
                SimulatorConfig.builder().apiKey(" "));
        assertMessage("reasoningTokens (-1) must be >= 0", SimulatorConfig.builder().reasoningTokens(-1));
        assertThrows(NullPointerException.class, () -> SimulatorConfig.builder().faultPlan(null).build());
        assertThrows(NullPointerException.class, () -> SimulatorConfig.builder().earlyStop(null).build());
    }

    @Test
    void embeddingsSettingsAreValidated() {
        assertEquals("dimensions (0) must be within [1, 65536]", assertThrows(IllegalArgumentException.class,
                () -> EmbeddingsConfig.defaults().withDimensions(0)).getMessage());
        assertEquals("maxBatchSize (0) must be >= 1", assertThrows(IllegalArgumentException.class,
                () -> EmbeddingsConfig.defaults().withMaxBatchSize(0)).getMessage());
        assertEquals("baseLatency (PT-0.001S) must be within [0, PT24H]", assertThrows(IllegalArgumentException.class,
                () -> EmbeddingsConfig.defaults().withLatency(Duration.ofMillis(-1), Duration.ZERO)).getMessage());
        assertEquals("perInputTokenLatency (PT25H) must be within [0, PT24H]",
                assertThrows(IllegalArgumentException.class, () -> EmbeddingsConfig.defaults()
                        .withLatency(Duration.ZERO, Duration.ofHours(25))).getMessage());
    }

    @Test
    void toStringNeverShowsTheApiKey() {
        String text = SimulatorConfig.builder().apiKey("sk-secret").build().toString();
        assertFalse(text.contains("sk-secret"), text);
        assertTrue(text.contains("apiKey=****"), text);
    }

    private static void assertMessage(String expected, SimulatorConfig.Builder builder) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
        assertEquals(expected, e.getMessage());
    }
}

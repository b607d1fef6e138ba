package io.llmperf4j.cli;

import io.llmperf4j.server.EmbeddingsConfig;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A closed loop of 3 requests, one at a time, against a simulator on 127.0.0.1 whose answers take 2 s, cut by
 * {@code --timeout 1}: the first is cancelled in flight and the other two are never sent. The last progress line says
 * so in the open loop's words ("(2 requests not sent: --timeout ended the run)"), its count's total the requests
 * sent; it ended at "1/3 requests done, 0 failed, 1 cancelled" with nothing saying why. The embeddings command's line the same.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProgressNotSentWordsTest {
    private static final String LAST = "llmperf4j: 1/1 requests done (2 requests not sent: --timeout ended the run), "
            + "0 failed, 1 cancelled, ";

    @Test
    void aChatClosedLoopCutByItsTimeoutSaysWhatWasNotSent(@TempDir Path dir) throws Exception {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofSeconds(2)).interTokenDelay(Duration.ofMillis(1)).build())) {
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                    "token-benchmark", "--model", "m", "--mean-input-tokens", "40", "--stddev-input-tokens", "0",
                    "--mean-output-tokens", "4", "--stddev-output-tokens", "0", "--no-client-warmup",
                    "--no-server-metrics", "--num-concurrent-requests", "1", "--max-num-completed-requests", "3",
                    "--timeout", "1", "--results-dir", dir.toString());
            assertTrue(run.err().lines().anyMatch(l -> l.startsWith(LAST)), run::toString);
        }
    }

    @Test
    void anEmbeddingsClosedLoopCutByItsTimeoutSaysWhatWasNotSent(@TempDir Path dir) throws Exception {
        EmbeddingsConfig slow = new EmbeddingsConfig(EmbeddingsConfig.defaults().dimensions(), Duration.ofSeconds(2),
                EmbeddingsConfig.defaults().perInputTokenLatency(), EmbeddingsConfig.defaults().maxBatchSize());
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder().embeddings(slow).build())) {
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                    "token-benchmark", "--llm-api", "embeddings", "--model", "e", "--mean-input-tokens", "40",
                    "--stddev-input-tokens", "0", "--no-client-warmup", "--num-concurrent-requests", "1",
                    "--max-num-completed-requests", "3", "--timeout", "1", "--results-dir", dir.toString());
            assertTrue(run.err().lines().anyMatch(l -> l.startsWith(LAST)), run::toString);
        }
    }
}

package io.llmperf4j.cli;

import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A count of one says its noun and verb in the singular (one helper, Plural): a run of 1 request at concurrency 4
 * against a simulator on 127.0.0.1 is warned "above the 1 request of the run: no more than 1 request is ever in
 * flight" (it said "the 1 requests of the run: no more than 1 requests are ever in flight").
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CountWordsTest {

    @Test
    void oneRequestIsSaidInTheSingular(@TempDir Path dir) throws Exception {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)).build())) {
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                    "token-benchmark", "--model", "m", "--mean-input-tokens", "40", "--stddev-input-tokens", "0",
                    "--mean-output-tokens", "4", "--stddev-output-tokens", "0", "--no-client-warmup",
                    "--no-server-metrics", "--num-concurrent-requests", "4", "--max-num-completed-requests", "1",
                    "--results-dir", dir.toString());
            assertEquals(0, run.exitCode(), run::toString);
            assertTrue(run.err().contains("llmperf4j: warning: concurrency 4 is above the 1 request of the run: no "
                    + "more than 1 request is ever in flight, so it measures concurrency 1 at most"), run::toString);
        }
    }
}

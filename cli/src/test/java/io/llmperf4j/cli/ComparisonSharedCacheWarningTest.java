package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
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
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@code --model a,b} comparison against a server that shares one prefix cache across its model names (a router,
 * aliases of one engine; the simulator's {@code sharedPrefixCache}): model b's prompts are model a's, sent just
 * before, so the server serves them from its cache, and b's PREFIX_CACHE_REUSED names model a as who may have sent
 * them, not only "an earlier run with the same --seed" (a report-only QA's finding, when the simulator itself shared
 * its cache). Model a, the first, has no such warning.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ComparisonSharedCacheWarningTest {

    @Test
    void theLaterModelsWarningNamesTheEarlierModel(@TempDir Path dir) throws Exception {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder().modelIds("a", "b")
                .timeToFirstToken(Duration.ofMillis(2)).interTokenDelay(Duration.ofMillis(1))
                .sharedPrefixCache(true).build())) {
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                    "token-benchmark", "--model", "a,b", "--max-num-completed-requests", "10",
                    "--num-concurrent-requests", "1", "--mean-output-tokens", "5", "--stddev-output-tokens", "0",
                    "--seed", "4242", "--no-client-warmup", "--no-server-metrics", "--results-dir", dir.toString());
            assertEquals(0, run.exitCode(), run::toString);

            assertNull(RunFolder.warning(RunFolder.summary(dir.resolve("a")), "PREFIX_CACHE_REUSED"), run::toString);
            JsonNode b = RunFolder.summary(dir.resolve("b"));
            String warning = RunFolder.warning(b, "PREFIX_CACHE_REUSED");
            assertTrue(warning != null && warning.contains("they were sent to this server before, by this "
                    + "comparison's model a (the same prompts, just before: this server shares one prefix cache "
                    + "across its model names) or by an earlier run with the same --seed"), () -> warning + "\n" + run);
            assertTrue(warning.contains("Compare models on servers that do not share a cache"), warning);
        }
    }
}

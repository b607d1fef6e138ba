package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmperf4j.server.FaultKind;
import io.llmperf4j.server.FaultPlan;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sessions run with a failed request and no server metrics: the prefix-cache line and the page's section do not
 * name a server /metrics rate the run does not have (the traces QA's: "the server's own /metrics rate also counts
 * the prompts of the 1 request that failed or were cancelled" under "no server metrics from .../metrics").
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PrefixCacheLineWithoutServerMetricsTest {

    @Test
    void noServerRateIsNamedWhenTheRunHasNone(@TempDir Path dir) throws Exception {
        // the pre-run request (the server's first) and the run's first pass; its third request gets a 500
        List<FaultKind> kinds = new ArrayList<>(List.of(FaultKind.NONE, FaultKind.NONE, FaultKind.HTTP_500));
        kinds.addAll(Collections.nCopies(40, FaultKind.NONE));
        SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(1))
                .interTokenDelay(Duration.ZERO).faultPlan(FaultPlan.sequence(kinds)).build();
        CliRun run;
        try (SimulatedServer server = SimulatedServer.start(config)) {
            run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"), "token-benchmark",
                    "--model", "m", "--turns", "3", "--input-lengths", "fixed:40", "--output-lengths", "fixed:3",
                    "--max-num-completed-requests", "9", "--num-concurrent-requests", "1", "--no-client-warmup",
                    "--no-server-metrics", "--results-dir", dir.toString());
        }
        assertTrue(run.exitCode() != 2, run::toString);
        JsonNode sessions = RunFolder.summary(dir).get("sessions");
        assertTrue(sessions.get("prefix_cache_hit_rate").asDouble() > 0, sessions::toString); // a line to say
        assertTrue(run.out().contains("server prefix-cache hit rate "), run::toString);
        assertTrue(run.out().contains("prompt tokens of the successful requests)"), run::toString);
        assertFalse(run.out().contains("/metrics rate"), run::toString);
        for (String page : RunFolder.writtenAndRebuiltPages(dir)) {
            assertTrue(page.contains("prompt tokens of the successful requests)"), "the page's sessions");
            assertFalse(page.contains("/metrics rate"), "the page names no server rate");
        }
    }
}

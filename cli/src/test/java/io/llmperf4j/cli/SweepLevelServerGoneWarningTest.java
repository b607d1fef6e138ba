package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sweep 1,2 against a simulator on 127.0.0.1 killed between its levels (once the first level's files are written,
 * during --sleep-between): the second level's own REQUESTS_FAILED, in its summary and on the console, says the server
 * was gone in the verdict's words, not "check the configuration" (the helper's finding: the level, read alone, had no
 * answer, so its refused connections read as the configuration while the verdict said the server was gone).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SweepLevelServerGoneWarningTest {
    private static final String GONE = "the server was gone after concurrency 1";

    @Test
    void theLevelAfterTheKillWarnsTheServerGoneAsTheVerdictSays(@TempDir Path dir) throws Exception {
        SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)).build());
        CliRun run;
        boolean closed = false;
        try {
            CompletableFuture<CliRun> running = CompletableFuture.supplyAsync(() -> CliRun.of(
                    Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"), "token-benchmark",
                    "--model", "m", "--mean-input-tokens", "40", "--stddev-input-tokens", "0",
                    "--mean-output-tokens", "4", "--stddev-output-tokens", "0", "--no-client-warmup",
                    "--no-server-metrics", "--concurrency-sweep", "1,2", "--max-num-completed-requests", "12",
                    "--sleep-between", "5", "--results-dir", dir.toString()));
            Path first = dir.resolve("concurrency_1").resolve("m_40_4_llmperf4j_summary.json");
            while (!Files.exists(first) && !running.isDone()) Thread.sleep(5);
            server.close(); // the first level ended: the second finds every connection refused
            closed = true;
            run = running.get(100, TimeUnit.SECONDS);
        } finally {
            if (!closed) server.close();
        }
        JsonNode firstSummary = RunFolder.summary(dir.resolve("concurrency_1"));
        assertEquals(12, firstSummary.at("/run/requests_succeeded").asInt(), run::toString);
        JsonNode summary = RunFolder.summary(dir.resolve("concurrency_2"));
        assertEquals(0, summary.at("/run/requests_succeeded").asInt(), run::toString);
        int refused = summary.at("/errors/by_kind/CONNECT_FAILED").asInt();
        assertTrue(refused > 0, summary.get("errors")::toString);
        String warning = RunFolder.warning(summary, "REQUESTS_FAILED");
        assertTrue(warning != null && warning.contains(refused + " point at the server going away: " + GONE
                + ": this level's connections were refused"), () -> warning + "\n" + run);
        assertFalse(warning.contains("configuration"), warning);
        // the verdict says the same
        assertTrue(run.out().contains("server unavailable (connections refused: " + GONE + ": restart, crash)"),
                run::toString);
        // the console's merged line is the level's warning
        String line = run.out().lines().filter(l -> l.startsWith("warning: [REQUESTS_FAILED] at concurrency 2: "))
                .findFirst().orElseThrow(() -> new AssertionError(run.toString()));
        assertTrue(line.contains(GONE), line);
        assertFalse(line.contains("check the configuration"), line);
    }
}

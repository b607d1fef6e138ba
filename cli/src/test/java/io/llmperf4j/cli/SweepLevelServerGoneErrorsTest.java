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
 * A sweep 1,2 against a simulator on 127.0.0.1 closed between its levels: the second level's errors are read once
 * with the first level's answer, so its summary's errors carry that reading ({@code errors.server_gone_before}) and
 * its page's error section and table say the server was gone in the verdict's words, as its REQUESTS_FAILED does,
 * not "point at the configuration" (the page read the level alone and said so).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SweepLevelServerGoneErrorsTest {
    private static final String GONE = "the server was gone after concurrency 1";

    @Test
    void theLevelsPageAndSummaryErrorsReadTheServerGone(@TempDir Path dir) throws Exception {
        SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)).build());
        CliRun run;
        boolean closed = false;
        try {
            CompletableFuture<CliRun> running = CompletableFuture.supplyAsync(() -> CliRun.of(
                    Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"), "token-benchmark",
                    "--model", "m", "--mean-input-tokens", "40", "--stddev-input-tokens", "0",
                    "--mean-output-tokens", "4", "--stddev-output-tokens", "0", "--no-client-warmup",
                    "--no-server-metrics", "--concurrency-sweep", "1,2", "--max-num-completed-requests", "6",
                    "--sleep-between", "5", "--results-dir", dir.toString()));
            Path first = dir.resolve("concurrency_1").resolve("m_40_4_llmperf4j_summary.json");
            while (!Files.exists(first) && !running.isDone()) Thread.sleep(5);
            server.close(); // the first level ended: the second finds every connection refused
            closed = true;
            run = running.get(100, TimeUnit.SECONDS);
        } finally {
            if (!closed) server.close();
        }
        JsonNode summary = RunFolder.summary(dir.resolve("concurrency_2"));
        assertEquals(0, summary.at("/run/requests_succeeded").asInt(), run::toString);
        int refused = summary.at("/errors/by_kind/CONNECT_FAILED").asInt();
        assertTrue(refused > 0, summary.get("errors")::toString);
        // the one reading, in the level's summary
        assertEquals(GONE, summary.at("/errors/server_gone_before/words").asText(), summary.get("errors")::toString);
        JsonNode firstSummary = RunFolder.summary(dir.resolve("concurrency_1"));
        assertTrue(firstSummary.at("/errors/server_gone_before").isMissingNode(), firstSummary.get("errors")::toString);
        // its warning and its page's error section read it
        String warning = RunFolder.warning(summary, "REQUESTS_FAILED");
        assertTrue(warning != null && warning.contains(refused + " point at the server going away: " + GONE),
                () -> warning + "\n" + run);
        String page = Files.readString(dir.resolve("concurrency_2").resolve("m_40_4_report.html"));
        String errors = page.substring(page.indexOf("<section id=\"errors\">"));
        errors = errors.substring(0, errors.indexOf("</section>"));
        assertTrue(errors.contains(refused + " point at the server going away (connections refused: " + GONE
                + ": a restart, a crash, an out-of-memory kill)"), errors);
        assertTrue(errors.contains("CONNECT_FAILED (gone since an earlier level)"), errors);
        assertFalse(errors.contains("configuration"), errors);
    }
}

package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.BeforeAll;
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
 * A sweep 1,2 against a simulator on 127.0.0.1 closed between its levels (once the first level's files are written,
 * during --sleep-between). The second level's errors are read once with the first level's answer: its own
 * REQUESTS_FAILED (summary and console), its summary's errors ({@code errors.server_gone_before}) and its page's
 * error section and table say the server was gone in the verdict's words, not "check the configuration" (the level,
 * read alone, had no answer, so its refused connections read as the configuration while the verdict said the server
 * was gone). One run, read by both tests.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SweepLevelServerGoneTest {
    private static final String GONE = "the server was gone after concurrency 1";

    @TempDir
    static Path dir;
    private static CliRun run;
    private static JsonNode summary;
    private static int refused;

    @BeforeAll
    static void sweepAcrossTheServersEnd() throws Exception {
        SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)).build());
        boolean closed = false;
        try {
            CompletableFuture<CliRun> running = CompletableFuture.supplyAsync(() -> CliRun.of(
                    Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"), "token-benchmark",
                    "--model", "m", "--mean-input-tokens", "40", "--stddev-input-tokens", "0",
                    "--mean-output-tokens", "4", "--stddev-output-tokens", "0", "--no-client-warmup",
                    "--no-server-metrics", "--concurrency-sweep", "1,2", "--max-num-completed-requests", "12",
                    // the pause is the window to close the server in, which takes milliseconds once the first
                    // level's summary is there (polled every 5 ms); 5 s of it was 3 s more than a loaded machine needs
                    "--sleep-between", "2", "--results-dir", dir.toString()));
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
        assertTrue(firstSummary.at("/errors/server_gone_before").isMissingNode(), firstSummary.get("errors")::toString);
        summary = RunFolder.summary(dir.resolve("concurrency_2"));
        assertEquals(0, summary.at("/run/requests_succeeded").asInt(), run::toString);
        refused = summary.at("/errors/by_kind/CONNECT_FAILED").asInt();
        assertTrue(refused > 0, summary.get("errors")::toString);
    }

    @Test
    void theLevelAfterTheKillWarnsTheServerGoneAsTheVerdictSays() {
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

    @Test
    void theLevelsPageAndSummaryErrorsReadTheServerGone() throws Exception {
        // the one reading, in the level's summary
        assertEquals(GONE, summary.at("/errors/server_gone_before/words").asText(), summary.get("errors")::toString);
        String page = Files.readString(dir.resolve("concurrency_2").resolve("m_40_4_report.html"));
        String errors = page.substring(page.indexOf("<section id=\"errors\">"));
        errors = errors.substring(0, errors.indexOf("</section>"));
        assertTrue(errors.contains(refused + " point at the server going away (connections refused: " + GONE
                + ": a restart, a crash, an out-of-memory kill)"), errors);
        assertTrue(errors.contains("CONNECT_FAILED (gone since an earlier level)"), errors);
        assertFalse(errors.contains("configuration"), errors);
    }
}

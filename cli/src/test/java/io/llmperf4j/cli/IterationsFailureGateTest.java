package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.server.FaultKind;
import io.llmperf4j.server.FaultPlan;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * --iterations go through the plain run's failure gate, over the requests of the measured iterations: exit 4 when
 * every one failed (no score printed or written, rather than 0 ± 0), or more than --max-error-rate percent did.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class IterationsFailureGateTest {
    @TempDir
    static Path shared;
    private static Path halfFailedDir;
    private static CliRun halfFailed;

    /**
     * One run for the two tests that read a run whose every second request was refused (the same server, the same
     * flags): its gate's exit and Result block, and the page report builds of its folder. Each ran it before: seconds
     * of iterations that told them nothing the other's did not.
     */
    private static synchronized CliRun halfFailedRun() {
        if (halfFailed == null) {
            halfFailedDir = shared.resolve("half-failed");
            try (SimulatedServer server = failing(FaultPlan.sequence(FaultKind.NONE, FaultKind.HTTP_500))) {
                halfFailed = iterations(server, halfFailedDir, "--max-error-rate", "5");
            }
        }
        return halfFailed;
    }

    private static CliRun iterations(SimulatedServer server, Path dir, String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "sim", "--mean-input-tokens", "50",
                "--mean-output-tokens", "10", "--num-concurrent-requests", "2", "--iterations", "2",
                "--warmup-iterations", "1", "--iteration-time", "1", "--no-client-warmup",
                "--results-dir", dir.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                args.toArray(String[]::new));
    }

    /** The page `llmperf4j report` writes for the folder. */
    private static String page(Path dir) throws Exception {
        CliRun report = CliRun.of(Map.of(), "report", dir.toString());
        assertEquals(0, report.exitCode(), report::toString);
        return Files.readString(dir.resolve("sim_50_10_report.html"));
    }

    private static SimulatedServer failing(FaultPlan plan) {
        return SimulatedServer.start(SimulatorConfig.builder().faultPlan(plan).build());
    }

    @Test
    void everyMeasuredRequestFailedExitsFourWithNoScore(@TempDir Path dir) throws Exception {
        try (SimulatedServer server = failing(FaultPlan.random(1.0, Map.of(FaultKind.HTTP_500, 1.0), 1))) {
            CliRun run = iterations(server, dir);
            assertEquals(4, run.exitCode(), run::toString);
            Matcher gate = Pattern.compile("llmperf4j: the run failed: every request failed \\((\\d+) of \\1\\):\n"
                    + "  HTTP_STATUS x\\1, the server said:\n").matcher(run.err());
            assertTrue(gate.find(), run::toString);
            int failed = Integer.parseInt(gate.group(1));
            assertTrue(run.out().contains("Result \"llmperf4j.token_benchmark\":\n  no score: every measured "
                    + "request failed (" + failed + " of " + failed + ")\n"), run::toString);
            assertFalse(run.out().contains("0.000 ±"), run::toString);
            assertTrue(run.out().contains("(no score, Cnt 0 and NaN: every measured request failed, " + failed
                    + " of " + failed + ")\n"), run::toString);

            JsonNode entry = new ObjectMapper().readTree(dir.resolve("sim_50_10_jmh.json").toFile()).get(0);
            assertEquals("NaN", entry.get("primaryMetric").get("score").asText());
            assertEquals("NaN", entry.get("primaryMetric").get("scoreError").asText());
            assertEquals("NaN", entry.get("secondaryMetrics").get("requests_per_s").get("score").asText());
            assertEquals(0, entry.get("measuredRequests").get("succeeded").asInt());
            assertEquals(failed, entry.get("measuredRequests").get("failed").asInt());

            // the page says what the harness said, not a mean of 0 tok/s computed from the CSV
            String page = page(dir);
            assertTrue(page.contains("<p>Measured iterations: 2, <strong class=\"mean\">no score: every measured "
                    + "request failed (" + failed + " of " + failed + ")</strong>"), page);
            assertFalse(page.contains("mean output tok/s <strong class=\"mean\">0.00</strong>"), page);
        }
    }

    /** The page's score is the harness's (the mean of `_jmh.json`), with its interval. */
    @Test
    void thePageShowsTheHarnesssScore() throws Exception {
        CliRun run = halfFailedRun();
        Path dir = halfFailedDir;
        JsonNode primary = new ObjectMapper().readTree(dir.resolve("sim_50_10_jmh.json").toFile()).get(0)
                .get("primaryMetric");
        assertTrue(primary.get("score").asDouble() > 0, () -> primary + "\n" + run);
        String page = page(dir);
        assertTrue(page.contains("mean output tok/s <strong class=\"mean\">" + String.format(
                java.util.Locale.ROOT, "%.2f", primary.get("score").asDouble()) + "</strong> <span class=\"ci\">"
                + "± " + String.format(java.util.Locale.ROOT, "%.2f", primary.get("scoreError").asDouble())),
                page);
    }

    @Test
    void maxErrorRateJudgesTheMeasuredIterations() throws Exception {
        // every second request refused: about half of the measured ones failed
        CliRun run = halfFailedRun();
        Path dir = halfFailedDir;
        assertEquals(4, run.exitCode(), run::toString);
        Matcher gate = Pattern.compile("llmperf4j: the run failed: (\\d+) of (\\d+) requests failed \\([0-9.]+%, "
                + "above --max-error-rate 5%\\):\n").matcher(run.err());
        assertTrue(gate.find(), run::toString);
        int failed = Integer.parseInt(gate.group(1));
        int total = Integer.parseInt(gate.group(2));
        // the score stands, and the Result block says how many of its requests failed
        assertTrue(run.out().contains(String.format(java.util.Locale.ROOT, "  failed: %d of %d measured requests "
                + "(%.1f%%)\n", failed, total, 100.0 * failed / total)), run::toString);
        JsonNode entry = new ObjectMapper().readTree(dir.resolve("sim_50_10_jmh.json").toFile()).get(0);
        assertEquals(total - failed, entry.get("measuredRequests").get("succeeded").asInt());
        assertEquals(failed, entry.get("measuredRequests").get("failed").asInt());
        assertTrue(entry.get("primaryMetric").get("score").asDouble() > 0, entry::toString);
    }
}

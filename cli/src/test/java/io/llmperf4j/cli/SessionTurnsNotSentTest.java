package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmperf4j.server.SimulatedServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static io.llmperf4j.cli.FastSimulator.env;

/**
 * Against the simulator: a closed loop of sessions that its --timeout ends mid-session counts the turns its started
 * sessions never sent (console line, warning, summary sessions.turns_not_sent, the page's row), as a trace replay
 * counts its requests not sent; and a trace with sessions is described by its sessions' starts, as its rate counts
 * them, its requests without a session as single requests.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionTurnsNotSentTest {

    @Test
    void aClosedLoopItsTimeoutEndsMidSessionCountsAndWarnsAboutTheTurnsNotSent(@TempDir Path tmp) throws IOException {
        Path out = tmp.resolve("out");
        CliRun run;
        try (SimulatedServer server = FastSimulator.start()) {
            // 2 sessions of 3 turns; a think time of 30 s after each first turn, a run limit of 1 s: whether a first
            // turn was done or cancelled, each session has its 2 later turns unsent
            run = CliRun.of(env(server), "token-benchmark", "--model", "sim", "--turns", "fixed:3", "--think-time",
                    "fixed:30000", "--num-concurrent-requests", "2", "--max-num-completed-requests", "6",
                    "--timeout", "1", "--no-client-warmup", "--results-dir", out.toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("Sessions: 2 started; 2 requests (turns) sent, 4 not sent\n"), run::toString);
        assertTrue(run.out().contains("Warning: 4 turns of the sessions in progress were not sent: the run's time "
                + "limit came first (raise --timeout)\n"), run::toString);
        JsonNode sessions = RunFolder.summary(out).get("sessions");
        assertEquals(4, sessions.get("turns_not_sent").asInt(), sessions::toString);
        assertEquals(2, sessions.get("sessions").asInt(), sessions::toString);
        for (String page : RunFolder.writtenAndRebuiltPages(out)) { // as the run wrote it, and rebuilt by `report DIR`
            assertTrue(page.contains("<tr><th scope=\"row\">Session turns not sent</th><td>4 turns of the sessions "
                    + "in progress when the run ended</td></tr>"), "the page's row of the summary's turns_not_sent");
        }
    }

    @Test
    void aClosedLoopThatSendsEveryTurnSaysNoneWereLeft(@TempDir Path tmp) throws IOException {
        Path out = tmp.resolve("out");
        CliRun run;
        try (SimulatedServer server = FastSimulator.start()) {
            run = CliRun.of(env(server), "token-benchmark", "--model", "sim", "--turns", "fixed:3", "--think-time",
                    "fixed:10", "--num-concurrent-requests", "2", "--max-num-completed-requests", "6",
                    "--no-client-warmup", "--results-dir", out.toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("Sessions: 2 started; 6 requests (turns) sent, 0 not sent\n"), run::toString);
        assertFalse(run.out().contains("were not sent"), run::toString);
        assertEquals(0, RunFolder.summary(out).get("sessions").get("turns_not_sent").asInt());
        for (String page : RunFolder.writtenAndRebuiltPages(out)) {
            assertFalse(page.contains("turns not sent"), "no row when every turn was sent");
        }
    }

    /** The run's page as the run wrote it, then rebuilt from its folder as `report DIR` builds it. */

    @Test
    void aClosedLoopWithoutSessionsHasNoSessionsLineNorKey(@TempDir Path tmp) throws IOException {
        Path out = tmp.resolve("out");
        CliRun run;
        try (SimulatedServer server = FastSimulator.start()) {
            run = CliRun.of(env(server), "token-benchmark", "--model", "sim", "--num-concurrent-requests", "2",
                    "--max-num-completed-requests", "4", "--no-client-warmup", "--results-dir", out.toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertFalse(run.out().contains("requests (turns) sent"), run::toString);
        JsonNode sessions = RunFolder.summary(out).get("sessions");
        assertTrue(sessions == null || !sessions.has("turns_not_sent"), String.valueOf(sessions));
    }

    @Test
    void aTraceWithSessionsIsDescribedByItsSessionStarts(@TempDir Path tmp) throws IOException {
        // sessions a and b start at 0 and 100 ms; their second turns' timestamps (200, 300) only order them
        Path trace = Files.writeString(tmp.resolve("t.jsonl"), """
                {"timestamp": 0, "input_length": 100, "output_length": 5, "session_id": "a"}
                {"timestamp": 100, "input_length": 100, "output_length": 5, "session_id": "b"}
                {"timestamp": 200, "input_length": 100, "output_length": 5, "session_id": "a", "delay": 50}
                {"timestamp": 300, "input_length": 100, "output_length": 5, "session_id": "b", "delay": 50}
                """);
        Path out = tmp.resolve("out");
        CliRun run;
        try (SimulatedServer server = FastSimulator.start()) {
            run = CliRun.of(env(server), "token-benchmark", "--model", "sim", "--trace", "mooncake:" + trace,
                    "--no-client-warmup", "--results-dir", out.toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        String details = "trace replay of mooncake:" + trace + " (2 sessions (4 requests) starting over 0.1 s, "
                + "speedup 1)";
        assertTrue(run.err().contains("llmperf4j: load: " + details + ", mean 10 sessions/s\n"), run::toString);
        assertTrue(run.out().contains("Open loop: " + details + ", mean offered 10 sessions/s, no cap on requests in "
                + "flight\n"), run::toString);
        assertFalse(run.out().contains("requests over"), run::toString);
    }

    /**
     * A trace mixing sessions and requests without one: each such request is a single request, not a session, in the
     * replay's load line, its open-loop block and trace-stats alike, and the rate counts arrivals (both).
     */
    @Test
    void aMixedTraceCountsItsRequestsWithoutASessionAsSingleRequests(@TempDir Path tmp) throws IOException {
        // sessions a (0 ms) and b (100 ms), 2 turns each; single requests at 50, 150 and 250 ms: 5 arrivals
        Path trace = MixedTrace.write(tmp);
        String words = "2 sessions (4 requests) and 3 single requests";
        CliRun stats = CliRun.of(Map.of(), "trace-stats", "mooncake:" + trace);
        assertEquals(0, stats.exitCode(), stats::toString);
        assertTrue(stats.out().startsWith("Trace " + trace + " (mooncake): 7 requests; 5 arrivals: " + words
                + ", starting over 0.250 s (mean 16 arrivals/s)\n"), stats::toString);

        Path out = tmp.resolve("out");
        CliRun run;
        try (SimulatedServer server = FastSimulator.start()) {
            run = CliRun.of(env(server), "token-benchmark", "--model", "sim", "--trace", "mooncake:" + trace,
                    "--no-client-warmup", "--results-dir", out.toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        String details = "trace replay of mooncake:" + trace + " (" + words + " starting over 0.25 s, speedup 1)";
        assertTrue(run.err().contains("llmperf4j: load: " + details + ", mean 16 arrivals/s\n"), run::toString);
        assertTrue(run.out().contains("Open loop: " + details + ", mean offered 16 arrivals/s, no cap on requests in "
                + "flight\n"), run::toString);
        assertTrue(run.out().contains("\nSessions and single requests: 5 scheduled, 5 started, 0 not started; "
                + "7 requests (turns) sent, 0 not sent;"), run::toString);
        String header = run.err() + run.out().substring(0, run.out().indexOf("latency (ms)"));
        assertFalse(header.contains("5 sessions") || header.contains("sessions/s"), header);
        // the result files count the sessions only, as the console and trace-stats do; a single request has none
        assertEquals(2, RunFolder.summary(out).get("sessions").get("sessions").asInt());
        try (var files = Files.list(out)) {
            JsonNode open = new com.fasterxml.jackson.databind.ObjectMapper().readTree(files
                    .filter(p -> p.toString().endsWith("_open_loop.json")).findFirst().orElseThrow().toFile());
            assertEquals(2, open.get("trace").get("sessions").asInt(), open::toString);
            assertEquals(3, open.get("trace").get("single_requests").asInt(), open::toString);
        }
        try (var files = Files.list(out)) {
            String page = Files.readString(files.filter(p -> p.toString().endsWith(".html")).findFirst()
                    .orElseThrow());
            assertTrue(page.contains("mean 16 arrivals/s"), "the page's load line counts arrivals as the console");
            assertFalse(page.contains("sessions/s"), "not sessions/s");
        }
        List<org.apache.commons.csv.CSVRecord> rows = RunFolder.csv(out);
        assertEquals(7, rows.size());
        assertEquals(3, rows.stream().filter(r -> r.get("session_id").isEmpty()).count(), rows::toString);
        assertTrue(run.out().contains("Sessions: 2 sessions, mean TTFT by turn"), run::toString);
    }
}

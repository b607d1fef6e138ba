package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.report.csv.RequestCsvReader;
import io.llmperf4j.report.metrics.TokenCounting;
import io.llmperf4j.report.summary.SessionsSummary;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A failed turn's rest ({@code s0~t2}, sent without history) counts in its workload session, not as a session of its
 * own, and by_turn keeps its turn's place in the session; the sessions block and the console say how many sessions
 * completed and how many were cut, their duration and turns (the sessions QA's run5a: "sessions: 5" for 4). Against
 * a server in the test on 127.0.0.1 that answers its third request of the run (s0's turn 1) with a 500. The rest's
 * turn keeps its place in the CSV and the journal (the sessions-QA's CSV showed s0's turn 0 twice), and its journal
 * record and its CSV row ({@code rest_of}) name the session it continues, so the CSV alone counts the sessions as
 * the journal does.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionsCompletedAndCutTest {

    @Test
    void aFailedTurnsRestCountsInItsSessionWhichIsCut(@TempDir Path tmp) throws Exception {
        CliRun run;
        try (SessionRunsCommandTest.Recorder server = new SessionRunsCommandTest.Recorder(Set.of(2), 0)) {
            run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"), "token-benchmark",
                    "--model", "m", "--turns", "3",
                    "--input-lengths", "fixed:30", "--output-lengths", "fixed:3", "--max-num-completed-requests", "9",
                    "--num-concurrent-requests", "1", "--no-client-warmup", "--results-dir", tmp.toString());
        }
        assertTrue(run.exitCode() != 2, run::toString);
        JsonNode sessions = RunFolder.summary(tmp).get("sessions");
        assertEquals(3, sessions.get("sessions").asInt(), sessions::toString);
        assertEquals(2, sessions.get("sessions_completed").asInt(), sessions::toString);
        assertEquals(1, sessions.get("sessions_cut").asInt(), sessions::toString);
        // 8 turns succeeded (s0's turn 1 failed) over 3 sessions
        assertEquals(8.0 / 3, sessions.get("mean_turns_per_session").asDouble(), 1e-9, sessions::toString);
        assertTrue(sessions.get("session_duration_p50_s").asDouble() > 0, sessions::toString);
        assertTrue(sessions.get("session_duration_p90_s").asDouble()
                >= sessions.get("session_duration_p50_s").asDouble(), sessions::toString);
        // turn 0: the 3 sessions' first turns; turn 2: s1's, s2's and s0's rest (sent without history)
        JsonNode byTurn = sessions.get("by_turn");
        assertEquals(3, byTurn.size(), byTurn::toString);
        assertEquals(3, byTurn.get(0).get("requests").asInt(), byTurn::toString);
        assertEquals(2, byTurn.get(1).get("requests").asInt(), byTurn::toString);
        assertEquals(2, byTurn.get(2).get("turn").asInt(), byTurn::toString);
        assertEquals(3, byTurn.get(2).get("requests").asInt(), byTurn::toString);
        assertTrue(run.out().contains("Sessions: 3 sessions, mean TTFT by turn "), run::toString);
        assertTrue(run.out().contains(" s; 2 completed, 1 cut (a failed turn, the run's end or a stop); 2.67 turns "
                + "each on average, session duration p50 "), run::toString);
        // the CSV: s0's turns 0 and 1 (failed), then its rest s0~t2 with turn 2, not a second turn 0
        List<CSVRecord> rows = RunFolder.csv(tmp);
        List<String> s0 = new ArrayList<>();
        for (CSVRecord r : rows) {
            if (r.get("session_id").startsWith("s0")) s0.add(r.get("session_id") + "/" + r.get("turn"));
        }
        assertEquals(List.of("s0/0", "s0/1", "s0~t2/2"), s0, rows::toString);
        // the journal: the same turn, and the rest tagged with its workload session; no other record is a rest
        int rests = 0;
        for (String line : Files.readAllLines(tmp.resolve("requests.jsonl"))) {
            JsonNode tags = new ObjectMapper().readTree(line).get("tags");
            if (tags.get("session_id").asText().equals("s0~t2")) {
                assertEquals(2, tags.get("turn").asInt(), line);
                assertEquals("s0", tags.get("rest_of").asText(), line);
                rests++;
            } else {
                assertFalse(tags.has("rest_of"), line); // written only when set
            }
        }
        assertEquals(1, rests);
        String pageSessions = "3 sessions (2 completed, 1 cut by a failed turn, the run's end or a stop), 2.67 turns "
                + "each on average, session duration (first send to last end) p50 ";
        for (String page : RunFolder.writtenAndRebuiltPages(tmp)) { // as the run wrote it, and rebuilt by `report DIR`
            assertTrue(page.contains(pageSessions), "the page's sessions");
        }
        // the CSV alone: the rest names its session and every turn its session's turns, so its records count the
        // sessions as the journal's do (before, s0~t2 was a fourth session and no session said its turns)
        for (CSVRecord r : rows) {
            assertEquals("3", r.get("session_turns"), r::toString);
            assertEquals(r.get("session_id").equals("s0~t2") ? "s0" : "", r.get("rest_of"), r::toString);
        }
        SessionsSummary fromCsv = SessionsSummary.of(RequestCsvReader.read(RunFolder.file(tmp, "_requests.csv")),
                TokenCounting.DEFAULT);
        assertEquals(List.of(3, 2, 1), List.of(fromCsv.sessions(), fromCsv.sessionsCompleted(), fromCsv.sessionsCut()),
                fromCsv::toString);
        assertEquals(sessions.get("mean_turns_per_session").asDouble(), fromCsv.meanTurnsPerSession(), 1e-9);
        // `report DIR` without the journal reads the CSV: the page says the same sessions
        Files.delete(tmp.resolve("requests.jsonl"));
        Files.delete(RunFolder.file(tmp, "_report.html"));
        CliRun report = CliRun.of(Map.of(), "report", tmp.toString());
        assertEquals(0, report.exitCode(), report::toString);
        String page = Files.readString(RunFolder.file(tmp, "_report.html"));
        assertTrue(page.contains(pageSessions), "the page rebuilt from the CSV: its sessions");
        assertTrue(page.contains(" from the per-request CSV"), "the page says its records came from the CSV");
    }
}

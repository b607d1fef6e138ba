package io.llmperf4j.cli;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An open loop that falls behind or is cut says so (the QA of stop 41), against the simulator on 127.0.0.1: one
 * request of at least 115 ms (20 ms to the first token, 19 more tokens 5 ms apart) at a time under
 * {@code --max-concurrency 1}, on constant schedules whose instants the test knows (arrival k at k / rate).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OpenLoopCutAndLagTest {
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();
    private static final Pattern SENT_LATE = Pattern.compile("The open loop sent late: (\\d+) of (\\d+) arrivals "
            + "sent \\([0-9.]+ %\\) went out more than ([0-9.]+) ms after their scheduled instants");

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(20))
            .interTokenDelay(Duration.ofMillis(5)));

    private static CliRun run(Path dir, String... load) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m",
                "--mean-input-tokens", "40", "--stddev-input-tokens", "0", "--mean-output-tokens", "20",
                "--stddev-output-tokens", "0", "--arrival", "constant", "--no-client-warmup", "--no-server-metrics",
                "--results-dir", dir.toString()));
        args.addAll(List.of(load));
        return CliRun.of(server.env(), args.toArray(String[]::new));
    }

    private static List<JsonNode> journal(Path dir) throws IOException {
        List<JsonNode> rows = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("requests.jsonl"))) rows.add(JSON.readTree(line));
        return rows;
    }

    /**
     * 10 req/s under a cap of one request of 115 ms or more: arrival k (k = 1..3, due at k x 100 ms) finds the cap
     * full and waits, yet is sent (at about k x 115 ms) before arrival k + 1 is due. Each such wait is a backlog of
     * one: the largest backlog is at least 1 (it read 0), and at most what the journal's sends allow (arrivals due by
     * each one's send, itself included).
     */
    @Test
    void anArrivalWaitingForAFreeSlotIsABacklog(@TempDir Path dir) throws Exception {
        CliRun run = run(dir, "--request-rate", "10", "--max-concurrency", "1", "--max-num-completed-requests", "4");
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode open = JSON.readTree(dir.resolve("m_40_20_open_loop.json").toFile());
        int backlog = open.get("max_backlog").asInt();
        assertTrue(backlog >= 1, "arrivals waited behind the cap: " + open);
        List<JsonNode> rows = journal(dir);
        assertEquals(4, rows.size());
        long gap = 100_000_000L;
        int bound = 0;
        for (int i = 0; i < 4; i++) { // the journal's rows are in completion order: one at a time, so arrival order
            long sentAt = i * gap + rows.get(i).get("send_lag_nanos").asLong();
            int due = 0;
            for (int j = i; j < 4; j++) if (j * gap <= sentAt) due++;
            bound = Math.max(bound, due);
        }
        assertTrue(backlog <= bound, backlog + " > " + bound + ": " + open);
        assertTrue(run.out().contains("largest backlog " + backlog + " (due but not yet sent)"), run::toString);
    }

    /**
     * 40 req/s (one every 25 ms) under a cap of one request of 115 ms or more: from arrival 1 on, each goes out at
     * least 90 ms x k late, far above the bound (the larger of 10 ms and the 25 ms interval). SENT_LATE says it with
     * the counts the journal's send lags give, in the summary and on the console.
     */
    @Test
    void sendsLateBeyondTheBoundAreWarnedWithTheCounts(@TempDir Path dir) throws Exception {
        CliRun run = run(dir, "--request-rate", "40", "--max-concurrency", "1", "--max-num-completed-requests", "12");
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode summary = JSON.readTree(dir.resolve("m_40_20_llmperf4j_summary.json").toFile());
        JsonNode warning = null;
        for (JsonNode w : summary.get("warnings")) {
            if ("SENT_LATE".equals(w.get("code").asText())) warning = w;
        }
        assertTrue(warning != null, summary.get("warnings")::toString);
        Matcher m = SENT_LATE.matcher(warning.get("message").asText());
        assertTrue(m.find(), warning::toString);
        assertEquals("25.00", m.group(3), warning::toString);
        long late = journal(dir).stream().filter(r -> r.get("send_lag_nanos").asLong() > 25_000_000L).count();
        assertTrue(late >= 11, "arrivals 1..11 waited behind the cap: " + late);
        assertEquals(late, Long.parseLong(m.group(1)), warning::toString);
        assertEquals("12", m.group(2), warning::toString);
        assertTrue(warning.get("message").asText().contains("the --max-concurrency 1 cap full"), warning::toString);
        assertTrue(run.out().contains("[SENT_LATE] The open loop sent late: " + late + " of 12 arrivals"),
                run::toString);
    }

    /**
     * 2 req/s for 10 arrivals (the last at 4.5 s) and --timeout 2: arrivals 4..9 (due at 2.0 s and after) are never
     * sent. Said before the run from the schedule, after it with the count the run's file has, and the progress line
     * stops counting them as still to come.
     */
    @Test
    void aScheduleLongerThanTheTimeoutIsSaidBeforeAndAfter(@TempDir Path dir) throws Exception {
        CliRun run = run(dir, "--request-rate", "2", "--max-num-completed-requests", "10", "--timeout", "2");
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.err().contains("llmperf4j: warning: the schedule needs 4.5 s to its last arrival, but "
                + "--timeout ends the run after 2 s: 6 of its 10 arrivals would not be sent; give --timeout 5 or "
                + "more"), run::toString);
        JsonNode open = JSON.readTree(dir.resolve("m_40_20_open_loop.json").toFile());
        assertTrue(open.get("timed_out").asBoolean(), open::toString);
        int notSent = open.get("arrivals_not_sent").asInt();
        int sent = open.get("requests_sent").asInt();
        assertEquals(6, notSent, open::toString);
        assertTrue(run.out().contains("Warning: 6 of the 10 arrivals were not sent: the 2 s --timeout ended the "
                + "run before the schedule's last arrival (at 4.5 s; give --timeout 5 or more to send them all)"),
                run::toString);
        String last = run.err().lines().filter(l -> l.contains("requests done")).reduce((a, b) -> b).orElseThrow();
        assertTrue(last.startsWith("llmperf4j: " + sent + "/" + sent + " requests done (6 arrivals not sent: "
                + "--timeout ended the schedule), "), run::toString);
    }

    /**
     * A rate sweep whose first level its --timeout cuts: the level's own lines (its "done" line, the table's flags,
     * a "timed out:" line) say so with the count its file has; the level the timeout does not reach says nothing.
     */
    @Test
    void aTimedOutSweepLevelSaysSoOnItsLines(@TempDir Path dir) throws Exception {
        CliRun run = run(dir, "--rate-sweep", "2,20", "--max-num-completed-requests", "10", "--timeout", "2",
                "--sleep-between", "0");
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.err().contains("llmperf4j: warning: the schedule of rate 2 req/s (4.5 s to its last arrival, "
                + "6 of 10 arrivals not sent) outlasts --timeout, which ends each level after 2 s"), run::toString);
        JsonNode cut = JSON.readTree(dir.resolve("rate_2").resolve("m_40_20_open_loop.json").toFile());
        assertEquals(6, cut.get("arrivals_not_sent").asInt(), cut::toString);
        String notSent = "6 of the 10 arrivals were not sent: the 2 s --timeout ended the level before the "
                + "schedule's last arrival";
        String done = run.err().lines().filter(l -> l.startsWith("llmperf4j: rate 2 req/s done: ")).findFirst()
                .orElseThrow();
        assertTrue(done.contains(" (timed out: " + notSent), done);
        String other = run.err().lines().filter(l -> l.startsWith("llmperf4j: rate 20 req/s done: ")).findFirst()
                .orElseThrow();
        assertTrue(!other.contains("timed out"), other);
        assertTrue(run.out().contains("timed out: rate 2 req/s: " + notSent), run::toString);
        String row = run.out().lines().filter(l -> l.stripLeading().startsWith("2 ")).findFirst().orElseThrow();
        assertTrue(row.endsWith("timed out"), row);
    }
}

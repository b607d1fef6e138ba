package io.llmperf4j.report.compare;

import io.llmperf4j.model.FailureKind;
import io.llmperf4j.report.metrics.RequestMetrics;
import io.llmperf4j.report.metrics.TokenCounting;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.llmperf4j.report.testutil.Records.MS;
import static io.llmperf4j.report.testutil.Records.START_EPOCH_MICROS;
import static io.llmperf4j.report.testutil.Records.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A distributed run that lost a load worker with part of its planned load never sent (the QA: 70 of 240 arrivals,
 * 29 %, compared with no word of them, and the throughput drop put on its 4 LOST requests): compare says each side's
 * unsent share beside the throughput, keeps the LOST failures out of the throughput's explanation, and a gate treats
 * the side as incomplete. The cluster run itself: LostWorkerLeftoversTest (cli).
 */
class UnsentLoadTest {

    private static final String LEFT = "worker 10.0.0.3:5701 left the cluster mid-run: 4 requests it had sent without "
            + "their records reaching the coordinator are recorded as lost, 70 it never said it sent are not sent";

    private static String summary(String left, int notSent) {
        return """
                {"settings": {"max_num_completed_requests": 240},
                 "run": {"requests_recorded": 170, "requests_succeeded": 166},
                 "distributed": {"cluster_name": "c", "coordinator": "10.0.0.1:5701", "workers": [
                   {"id": "10.0.0.2:5701", "requests_assigned": 120, "requests_recorded": 120, "requests_lost": 0,
                    "requests_not_sent": 0, "left": null},
                   {"id": "10.0.0.3:5701", "requests_assigned": 120, "requests_recorded": 50, "requests_lost": 4,
                    "requests_not_sent": %d, "left": %s}]}}
                """.formatted(notSent, left == null ? "null" : "\"" + left + "\"");
    }

    private static Path run(Path dir, String summary) throws Exception {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("m_100_20_llmperf4j_summary.json"), summary);
        return dir;
    }

    private static RunSamples side(String label, int ok, int lost) {
        List<RequestMetrics> requests = new ArrayList<>();
        for (int i = 0; i < ok + lost; i++) {
            var r = request(i).start(START_EPOCH_MICROS + i * 100_000L);
            requests.add(RequestMetrics.from(i < ok ? r.evenEvents(100 * MS, 10 * MS, 10).e2e(190 * MS)
                    .usage(50, 10).build() : r.failed(FailureKind.LOST, -1, "lost").e2e(50 * MS).build(),
                    TokenCounting.DEFAULT));
        }
        return RunSamples.of(label, requests);
    }

    @Test
    void aRunWithLoadNeverSentIsAnIncompleteSide(@TempDir Path tmp) throws Exception {
        Path whole = run(tmp.resolve("whole"), summary(null, 0));
        Path lost = run(tmp.resolve("lost"), summary(LEFT, 70));
        assertEquals(List.of(new StoppedRuns.Note("the candidate (" + lost + ") did not send all its planned load: 70 "
                + "of its 240 planned requests (29.2 %) were never sent: load worker 10.0.0.3:5701 left the cluster "
                + "mid-run, so it offered 70.8 % of the load that was asked (those requests are not records, nor "
                + "failures): its throughput is of the load it sent, and it is not the run that was asked for; "
                + "compare runs whose workers all finished", true)), StoppedRuns.notes(whole, lost));
        // a worker that left with nothing unsent (its requests all sent, some lost) offered the whole load
        assertTrue(StoppedRuns.notes(whole, run(tmp.resolve("allSent"), summary(LEFT, 0))).isEmpty());
    }

    @Test
    void theUnsentShareIsSaidBesideTheThroughputAndNotPutOnTheLostRequests() {
        RunSamples candidate = side("b", 166, 4).withUnsentLoad(new UnsentLoad(70, 240, List.of("10.0.0.3:5701")));
        RunComparison c = RunComparison.compare(side("a", 240, 0), candidate);
        String line = c.unsentLoad().orElseThrow();
        assertEquals("throughput: load never sent: the candidate's 70 of its 240 planned requests (29.2 %) were never "
                + "sent: load worker 10.0.0.3:5701 left the cluster mid-run, so it offered 70.8 % of its planned load "
                + "and its throughput rows are of that load: a drop of up to 29.2 % is the load it never sent (and "
                + "its 4 requests lost with the worker, sent but their answers unknown, 1.7 % more), not the server",
                line);
        String errors = c.failuresNotTheServers().orElseThrow();
        assertFalse(errors.contains("the throughput count them all"), errors);
        assertTrue(errors.endsWith("(the error rate counts them all; the throughput line says what the unsent load "
                + "explains)"), errors);
        RuleResult throughput = FailIfRule.parse("request_throughput<-5%").evaluate(c);
        assertTrue(throughput.message().endsWith("; " + line), throughput.message());
        assertFalse(throughput.message().contains("some were not the server's"), throughput.message());
        String table = ComparisonConsoleReport.render(c);
        assertTrue(table.contains("candidate: b (166 of 170 requests ok, window "), table);
        assertTrue(table.contains("from memory; 70 of its 240 planned requests never sent (a load worker left "
                + "mid-run))\n"), table);
        int row = table.indexOf("Request throughput");
        assertTrue(row > 0 && table.indexOf("\n" + line + "\n") == table.indexOf('\n', row), table);
        // a side that sent all it planned gets no line
        assertTrue(RunComparison.compare(side("a", 240, 0), side("b", 166, 4)).unsentLoad().isEmpty());
    }
}

package io.llmperf4j.report.compare;

import io.llmperf4j.model.FailureKind;
import io.llmperf4j.report.metrics.RequestMetrics;
import io.llmperf4j.report.metrics.TokenCounting;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

import static io.llmperf4j.report.testutil.Records.MS;
import static io.llmperf4j.report.testutil.Records.START_EPOCH_MICROS;
import static io.llmperf4j.report.testutil.Records.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The causes of a side's failures beside its error rate: requests lost with a load worker (a cluster run whose
 * worker was killed: 150 of 400 LOST made "FAIL error_rate +0.375" and "FAIL output_throughput -37.8%" with no word
 * that the server had no part in them) are named as not the server's; 5xx failures, the server's capacity, are not.
 */
class FailureCausesTest {

    private static RunSamples side(String label, int ok, FailureKind kind, int code, int failed) {
        List<RequestMetrics> requests = new ArrayList<>();
        for (int i = 0; i < ok + failed; i++) {
            var r = request(i).start(START_EPOCH_MICROS + i * 100_000L);
            requests.add(RequestMetrics.from(i < ok ? r.evenEvents(100 * MS, 10 * MS, 10).e2e(190 * MS)
                    .usage(50, 10).build() : r.failed(kind, code, "failed").e2e(50 * MS).build(),
                    TokenCounting.DEFAULT));
        }
        return RunSamples.of(label, requests);
    }

    @Test
    void lostRequestsAreNamedNextToTheErrorRateAndTheThroughput() {
        RunComparison c = RunComparison.compare(side("a", 40, null, 0, 0), side("b", 25, FailureKind.LOST, -1, 15));
        String line = c.failuresNotTheServers().orElseThrow();
        assertEquals("error rate: failures that are not the server's: the candidate's 15 LOST: lost with a load "
                + "worker that left the cluster mid-run, no fault of the server's (the error rate and the throughput "
                + "count them all)", line);
        RuleResult errors = FailIfRule.parse("error_rate>0.01").evaluate(c);
        assertTrue(errors.failed());
        assertTrue(errors.message().endsWith("; " + line), errors.message());
        RuleResult throughput = FailIfRule.parse("output_throughput<-5%").evaluate(c);
        assertTrue(throughput.message().contains("this figure has no interval (one value per run"),
                throughput.message());
        assertTrue(throughput.message().contains("some were not the server's (the error rate line says which)"),
                throughput.message());
        assertTrue(ComparisonConsoleReport.render(c).contains("\n" + line + "\n"));
    }

    /** Error events after tokens are counted as the server's capacity (23d2d27), and the line's list says so. */
    @Test
    void errorEventsAfterTokensAreListedWithTheServersCapacity() {
        List<RequestMetrics> requests = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            var r = request(i).start(START_EPOCH_MICROS + i * 100_000L);
            requests.add(RequestMetrics.from(i < 2 ? r.evenEvents(100 * MS, 10 * MS, 10).e2e(190 * MS)
                    .usage(50, 10).build() : i < 4 ? r.evenEvents(100 * MS, 10 * MS, 2)
                    .failed(FailureKind.ERROR_IN_STREAM, 400, "engine error").e2e(150 * MS).build()
                    : r.failed(FailureKind.LOST, -1, "lost").e2e(50 * MS).build(), TokenCounting.DEFAULT));
        }
        RunComparison c = RunComparison.compare(side("a", 40, null, 0, 0), RunSamples.of("b", requests));
        assertEquals("error rate: failures that are not the server's: the candidate's 2 CAPACITY: the server's "
                + "capacity (429, 408, 5xx, timeouts, dropped connections, error events after tokens); 2 LOST: lost "
                + "with a load worker that left the cluster mid-run, no fault of the server's (the error rate and "
                + "the throughput count them all)", c.failuresNotTheServers().orElseThrow());
    }

    @Test
    void serverErrorsAreTheServersAndGetNoLine() {
        RunComparison c = RunComparison.compare(side("a", 40, null, 0, 0),
                side("b", 25, FailureKind.HTTP_STATUS, 503, 15));
        assertFalse(c.failuresNotTheServers().isPresent());
        assertFalse(FailIfRule.parse("error_rate>0.01").evaluate(c).message().contains("not the server's"));
    }
}

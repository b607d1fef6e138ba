package io.llmperf4j.report.metrics;

import static io.llmperf4j.report.testutil.Records.MS;
import static io.llmperf4j.report.testutil.Records.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.testutil.Records;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunMetricsTest {

    /**
     * Three successes (100, 200, 300 output tokens by usage; TTFT 100/200/300 ms; events 10 ms apart, the response
     * ending with the last one: TPOT exactly 10 ms; E2E 1.09/2.19/3.29 s), two failures, over 4 s.
     */
    private static BenchmarkRun mixedRun() {
        List<RequestRecord> records = List.of(
                request(0).evenEvents(100 * MS, 10 * MS, 100).e2e(1_090 * MS).usage(500, 100).client(101).build(),
                request(1).evenEvents(200 * MS, 10 * MS, 200).e2e(2_190 * MS).usage(500, 200).client(203).build(),
                request(2).evenEvents(300 * MS, 10 * MS, 300).e2e(3_290 * MS).usage(500, 300).client(301).build(),
                request(3).e2e(50 * MS).failed(FailureKind.HTTP_STATUS, 500, "Internal Server Error").build(),
                request(4).e2e(60 * MS).failed(FailureKind.HTTP_STATUS, 429, "Too Many Requests").build());
        return Records.run(4_000 * MS, false, records);
    }

    @Test
    void throughputCountsSuccessfulTokensOverTheRunDuration() {
        RunMetrics m = RunMetrics.of(mixedRun(), MetricsConfig.DEFAULT);
        assertEquals(5, m.requestsRecorded());
        assertEquals(3, m.requestsSucceeded());
        assertEquals(2, m.requestsFailed());
        assertEquals(600, m.totalOutputTokens());
        assertEquals(150.0, m.outputTokensPerSecond());
        assertEquals(0.75, m.requestsPerSecond());
        assertEquals(new TokenSourceCounts(3, 0, 0), m.outputTokenSources());
        assertEquals(new TokenSourceCounts(3, 0, 0), m.inputTokenSources());
        assertEquals(3, m.stats(Metric.TTFT).count());
        // exact values, numpy's linear interpolation: 200 ms reads back as 200 ms
        assertEquals(200.0 * MS, m.stats(Metric.TTFT).p50());
        assertEquals(200.0 * MS, m.stats(Metric.TTFT).mean()); // exact
        assertEquals(597, m.stats(Metric.ITL).count());
        assertEquals(10.0 * MS, m.stats(Metric.ITL).p99());
        assertEquals(10.0 * MS, m.stats(Metric.TPOT).p50());
    }

    @Test
    void errorsAreCountedByKindAndCode() {
        ErrorBreakdown errors = RunMetrics.of(mixedRun(), MetricsConfig.DEFAULT).errors();
        assertEquals(2, errors.failed());
        assertEquals(0.4, errors.errorRate());
        assertEquals(Map.of(FailureKind.HTTP_STATUS, 2), errors.byKind());
        assertEquals(List.of(429, 500), List.copyOf(errors.byCode().keySet()));
        assertEquals(1, errors.byCode().get(500));
    }

    @Test
    void tokenDiscrepancyComparesClientWithoutBosAgainstUsage() {
        // client counts without BOS: 100, 202, 300 against usage 100, 200, 300
        TokenDiscrepancy d = RunMetrics.of(mixedRun(), MetricsConfig.DEFAULT).tokenDiscrepancy();
        assertEquals(3, d.requestsCompared());
        assertEquals(1, d.requestsDiffering());
        assertEquals(100.0 / 3, d.percentDiffering(), 1e-12);
        assertEquals(2.0 / 3, d.meanAbsoluteDifference(), 1e-12);
        assertEquals(2, d.maxAbsoluteDifference());
        assertEquals(2.0 / 3, d.meanSignedDifference(), 1e-12);
        assertEquals(1, d.clientSpecialTokensSubtracted());
    }

    @Test
    void goodputLeavesOutCancelledRequestsThatHadNotYetMissedABound() {
        List<RequestRecord> records = new java.util.ArrayList<>(mixedRun().records()); // 3 ok, 2 HTTP failures
        // cancelled by the client, all within TTFT <= 250 ms and E2E <= 2 s so far: left out
        records.add(request(5).evenEvents(100 * MS, 10 * MS, 5).e2e(150 * MS)
                .failed(FailureKind.CANCELLED, -1, "cancelled").build());
        records.add(request(6).e2e(200 * MS).failed(FailureKind.CANCELLED, -1, "cancelled").build());
        // cancelled after outliving the TTFT bound without a token, and with a TTFT past it: judged, not good
        records.add(request(7).e2e(300 * MS).failed(FailureKind.CANCELLED, -1, "cancelled").build());
        records.add(request(8).evenEvents(260 * MS, 10 * MS, 2).e2e(280 * MS)
                .failed(FailureKind.CANCELLED, -1, "cancelled").build());
        // a request timeout is no client cancellation: judged as the failure it is
        records.add(request(9).e2e(100 * MS).failed(FailureKind.REQUEST_TIMEOUT, -1, "timeout").build());
        BenchmarkRun run = Records.run(4_000 * MS, false, records);

        Goodput g = RunMetrics.of(run, MetricsConfig.DEFAULT.withSlo(Slo.parse("ttft:250ms,e2e:2s"))).goodput()
                .orElseThrow();
        assertEquals(1, g.goodRequests(), "request 0 only: 1 and 2 miss E2E or TTFT");
        assertEquals(2, g.censoredRequests());
        assertEquals(10, g.recordedRequests());
        assertEquals(8, g.judgedRequests(), "10 recorded, 2 cancelled ones left out");
        assertEquals(1.0 / 8, g.goodFraction(), 1e-12);

        // an E2E bound alone: request 7 and 8 (300 and 280 ms) are within 2 s, left out too
        Goodput e2eOnly = RunMetrics.of(run, MetricsConfig.DEFAULT.withSlo(Slo.parse("e2e:2s"))).goodput()
                .orElseThrow();
        assertEquals(4, e2eOnly.censoredRequests());
        assertEquals(6, e2eOnly.judgedRequests());
        assertEquals(1.0 / 6, e2eOnly.goodFraction(), 1e-12);
    }

    @Test
    void goodputCountsSuccessesMeetingEveryGivenBound() {
        BenchmarkRun run = mixedRun();
        Goodput ttftOnly = RunMetrics.of(run, MetricsConfig.DEFAULT.withSlo(Slo.parse("ttft:250ms")))
                .goodput().orElseThrow();
        assertEquals(2, ttftOnly.goodRequests());
        assertEquals(5, ttftOnly.recordedRequests());
        assertEquals(5, ttftOnly.judgedRequests());
        assertEquals(0.5, ttftOnly.goodRequestsPerSecond());
        assertEquals(0.4, ttftOnly.goodFraction()); // failures are in the denominator
        assertEquals(1, ttftOnly.ttftViolations());
        assertEquals(0, ttftOnly.tpotViolations());

        Goodput all = RunMetrics.of(run, MetricsConfig.DEFAULT.withSlo(
                new Slo(Duration.ofMillis(250), Duration.ofMillis(10), Duration.ofMillis(2_000)))).goodput().orElseThrow();
        assertEquals(1, all.goodRequests());
        assertEquals(1, all.ttftViolations());
        assertEquals(0, all.tpotViolations());
        assertEquals(2, all.e2eViolations());

        Goodput tightTpot = RunMetrics.of(run, MetricsConfig.DEFAULT.withSlo(Slo.parse("tpot:9.999"))).goodput()
                .orElseThrow();
        assertEquals(0, tightTpot.goodRequests());
        assertEquals(3, tightTpot.tpotViolations());

        assertTrue(RunMetrics.of(run, MetricsConfig.DEFAULT).goodput().isEmpty());
    }

    @Test
    void goodputJudgesUndefinedValues() {
        Slo slo = Slo.parse("ttft:1s,tpot:50ms");
        RequestMetrics oneToken = RequestMetrics.from(request(0).events(100 * MS).e2e(120 * MS).usage(5, 1).build(),
                TokenCounting.DEFAULT);
        RequestMetrics noContent = RequestMetrics.from(request(1).events().e2e(120 * MS).usage(5, 0).build(),
                TokenCounting.DEFAULT);
        RequestMetrics uncounted = RequestMetrics.from(request(2).evenEvents(100 * MS, 10 * MS, 5).e2e(150 * MS)
                .build(), TokenCounting.DEFAULT);
        assertTrue(slo.isMetBy(oneToken), "nothing to decode meets a TPOT bound");
        assertTrue(!slo.isMetBy(noContent), "no content cannot meet a TTFT bound");
        assertTrue(!slo.isMetBy(uncounted), "an unknown token count cannot be judged against TPOT");
        assertTrue(Slo.parse("e2e:1s").isMetBy(uncounted));
    }

    @Test
    void zeroLengthRunHasUndefinedRates() {
        RunMetrics m = RunMetrics.of(Records.run(0, false, List.of()), MetricsConfig.DEFAULT);
        assertTrue(Double.isNaN(m.outputTokensPerSecond()));
        assertTrue(Double.isNaN(m.requestsPerSecond()));
        assertTrue(Double.isNaN(m.errors().errorRate()));
        assertTrue(m.stats(Metric.TTFT).isEmpty());
    }

    @Test
    void sloParsingAcceptsUnitsAndRejectsNonsense() {
        Slo slo = Slo.parse(" TTFT:0.5s , tpot=50, e2el:2500ms");
        assertEquals(Duration.ofMillis(500), slo.ttft());
        assertEquals(Duration.ofMillis(50), slo.tpot());
        assertEquals(Duration.ofMillis(2500), slo.e2e());
        assertEquals("TTFT <= 500 ms, TPOT <= 50 ms, E2E <= 2500 ms", slo.describe());
        assertEquals(Duration.ofNanos(1_500), Slo.parse("ttft:1.5us").ttft());

        IllegalArgumentException bad = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Slo.parse("ttft:fast"));
        assertEquals("SLO term 'ttft:fast' in 'ttft:fast' is not <metric>:<limit>; metrics ttft, tpot, e2e; limits "
                + "like 500ms, 0.5s or 500 (ms)", bad.getMessage());
        assertEquals("SLO 'ttft:1,ttft:2' gives ttft twice", org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> Slo.parse("ttft:1,ttft:2")).getMessage());
        assertEquals("SLO ttft bound (PT0S) must be > 0", org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> Slo.parse("ttft:0")).getMessage());
    }
}

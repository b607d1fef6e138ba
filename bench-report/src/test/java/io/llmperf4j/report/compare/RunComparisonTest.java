package io.llmperf4j.report.compare;

import static io.llmperf4j.report.testutil.Records.MS;
import static io.llmperf4j.report.testutil.Records.START_EPOCH_MICROS;
import static io.llmperf4j.report.testutil.Records.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.report.metrics.RequestMetrics;
import io.llmperf4j.report.metrics.TokenCounting;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RunComparisonTest {

    /**
     * {@code n} successful requests with TTFT ~ 150 ms + Exp(mean 100 ms) + shift, 100 tokens each at 10 ms per
     * token. Drawn from a seeded stream, so the samples are fixed.
     */
    static RunSamples synthetic(String label, long seed, int n, long shiftNanos) {
        SplittableRandom random = new SplittableRandom(seed);
        List<RequestMetrics> requests = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long ttft = 150 * MS + (long) (-Math.log(1 - random.nextDouble()) * 100 * MS) + shiftNanos;
            requests.add(RequestMetrics.from(request(i).start(START_EPOCH_MICROS + i * 100_000L)
                    .evenEvents(ttft, 10 * MS, 100).e2e(ttft + 99 * 10 * MS).usage(500, 100).build(),
                    TokenCounting.DEFAULT));
        }
        return RunSamples.of(label, requests);
    }

    @Test
    void pointEstimatesOnKnownData() {
        RunSamples a = RunSamples.of("a", List.of(
                RequestMetrics.from(request(0).events(100 * MS).e2e(1_000 * MS).usage(1, 1).build(), TokenCounting.DEFAULT),
                RequestMetrics.from(request(1).events(200 * MS).e2e(1_000 * MS).usage(1, 1).build(), TokenCounting.DEFAULT),
                RequestMetrics.from(request(2).events(300 * MS).e2e(1_000 * MS).usage(1, 1).build(), TokenCounting.DEFAULT)));
        RunSamples b = RunSamples.of("b", List.of(
                RequestMetrics.from(request(0).events(110 * MS).e2e(1_000 * MS).usage(1, 1).build(), TokenCounting.DEFAULT),
                RequestMetrics.from(request(1).events(220 * MS).e2e(1_000 * MS).usage(1, 1).build(), TokenCounting.DEFAULT),
                RequestMetrics.from(request(2).events(330 * MS).e2e(1_000 * MS).usage(1, 1).build(), TokenCounting.DEFAULT)));
        RunComparison c = RunComparison.compare(a, b);
        MetricDelta p50 = c.delta(CompareMetric.TTFT, CompareStat.P50).orElseThrow();
        assertEquals(200.0, p50.baseline());
        assertEquals(220.0, p50.candidate());
        assertEquals(20.0, p50.absoluteDelta(), 1e-12);
        assertEquals(10.0, p50.relativeDeltaPercent(), 1e-12);
        assertEquals("ttft_p50", p50.ruleKey());
        // numpy linear interpolation: p90 of 100, 200, 300 is 280
        assertEquals(280.0, c.delta(CompareMetric.TTFT, CompareStat.P90).orElseThrow().baseline(), 1e-9);
        assertEquals(10.0, c.delta(CompareMetric.TTFT, CompareStat.MEAN).orElseThrow().relativeDeltaPercent(), 1e-9);
        // one output token: no TPOT on either side
        MetricDelta tpot = c.delta(CompareMetric.TPOT, CompareStat.P50).orElseThrow();
        assertTrue(Double.isNaN(tpot.baseline()));
        assertNull(tpot.absoluteCi());
        MetricDelta throughput = c.delta(CompareMetric.OUTPUT_THROUGHPUT, CompareStat.VALUE).orElseThrow();
        assertNull(throughput.absoluteCi());
        assertEquals("output_throughput", throughput.ruleKey());
        assertEquals(6 * 4 + 3, c.deltas().size()); // 6 per-request metrics x 4 stats, 3 run-level
    }

    @Test
    void bootstrapIntervalsContainTheTrueShift() {
        long shift = 50 * MS;
        RunSamples baseline = synthetic("baseline", 1, 1_000, 0);
        RunSamples candidate = synthetic("candidate", 2, 1_000, shift);
        RunComparison c = RunComparison.compare(baseline, candidate);
        for (CompareStat stat : new CompareStat[] {CompareStat.P50, CompareStat.P90, CompareStat.MEAN}) {
            for (CompareMetric metric : new CompareMetric[] {CompareMetric.TTFT, CompareMetric.E2E}) {
                MetricDelta d = c.delta(metric, stat).orElseThrow();
                assertTrue(d.absoluteCi().contains(50.0), metric + " " + stat + ": " + d.absoluteCi());
                assertTrue(d.significant(), metric + " " + stat);
                assertEquals(0.95, d.absoluteCi().level());
            }
        }
        // TPOT is 10 ms everywhere: a zero delta with a zero-width interval
        MetricDelta tpot = c.delta(CompareMetric.TPOT, CompareStat.P99).orElseThrow();
        assertEquals(0.0, tpot.absoluteDelta(), 1e-9);
        assertTrue(tpot.absoluteCi().contains(0.0));
        assertTrue(!tpot.significant());

        // two samples of the same distribution: the CI covers 0
        RunComparison same = RunComparison.compare(baseline, synthetic("again", 3, 1_000, 0));
        assertTrue(same.delta(CompareMetric.TTFT, CompareStat.P50).orElseThrow().absoluteCi().contains(0.0));
    }

    @Test
    void bootstrapIsDeterministicForASeed() {
        RunSamples baseline = synthetic("baseline", 1, 300, 0);
        RunSamples candidate = synthetic("candidate", 2, 300, 20 * MS);
        RunComparison first = RunComparison.compare(baseline, candidate);
        RunComparison second = RunComparison.compare(baseline, candidate);
        assertEquals(first, second);
        RunComparison otherSeed = RunComparison.compare(baseline, candidate, new BootstrapConfig(2_000, 0.95, 99));
        assertNotEquals(first.delta(CompareMetric.TTFT, CompareStat.P90).orElseThrow().absoluteCi(),
                otherSeed.delta(CompareMetric.TTFT, CompareStat.P90).orElseThrow().absoluteCi());
        // point estimates do not depend on the seed
        assertEquals(first.delta(CompareMetric.TTFT, CompareStat.P90).orElseThrow().absoluteDelta(),
                otherSeed.delta(CompareMetric.TTFT, CompareStat.P90).orElseThrow().absoluteDelta());
    }

    @Test
    void relativeIntervalsAreInPercent() {
        RunComparison c = RunComparison.compare(synthetic("a", 1, 1_000, 0), synthetic("b", 2, 1_000, 50 * MS));
        MetricDelta mean = c.delta(CompareMetric.TTFT, CompareStat.MEAN).orElseThrow();
        // true mean 250 ms -> 300 ms: +20 %
        assertTrue(mean.relativeCi().contains(20.0), mean.relativeCi().toString());
        assertEquals(mean.absoluteDelta() / mean.baseline() * 100, mean.relativeDeltaPercent(), 1e-9);
    }

    @Test
    void aRequestResampleOfOneValuePerRequestIsTheOrdinaryBootstrap() {
        SplittableRandom random = new SplittableRandom(5);
        double[][] a = new double[200][];
        double[][] b = new double[150][];
        // ascending, so request i is also the i-th smallest value and both bootstraps index the same draws
        for (int i = 0; i < a.length; i++) a[i] = new double[] {100 + 0.25 * i + random.nextDouble() / 10};
        for (int i = 0; i < b.length; i++) b[i] = new double[] {110 + 0.3 * i + random.nextDouble() / 10};
        PooledSample pa = PooledSample.of(a);
        PooledSample pb = PooledSample.of(b);
        ConfidenceInterval[][] pooled = Bootstrap.pooledIntervals(pa, pb, CompareStat.PER_REQUEST,
                BootstrapConfig.DEFAULT, 42);
        ConfidenceInterval[][] plain = Bootstrap.intervals(pa.sorted(), pb.sorted(), CompareStat.PER_REQUEST,
                BootstrapConfig.DEFAULT, 42);
        for (int s = 0; s < CompareStat.PER_REQUEST.length; s++) {
            for (int kind = 0; kind < 2; kind++) {
                assertEquals(plain[s][kind].lower(), pooled[s][kind].lower(), 1e-9, CompareStat.PER_REQUEST[s] + "");
                assertEquals(plain[s][kind].upper(), pooled[s][kind].upper(), 1e-9, CompareStat.PER_REQUEST[s] + "");
            }
        }
    }

    @Test
    void itlIntervalsResampleRequestsNotGaps() {
        // each request streams at its own pace (8 to 12 ms per event, 50 gaps); the candidate is 20 % slower
        RunSamples baseline = paced("baseline", 1, 60, 1.0);
        RunSamples candidate = paced("candidate", 2, 60, 1.2);
        RunComparison c = RunComparison.compare(baseline, candidate);
        MetricDelta mean = c.delta(CompareMetric.ITL, CompareStat.MEAN).orElseThrow();
        assertEquals(60 * 50, mean.baselineCount());
        assertTrue(mean.relativeCi().contains(20.0), mean.relativeCi().toString());
        assertTrue(mean.significant());
        // gaps of one request are alike, so only 60 independent units per side: an i.i.d. bootstrap over the
        // 3000 gaps would give an interval several times narrower than the request resample
        ConfidenceInterval gapwise = Bootstrap.intervals(baseline.sortedValues(CompareMetric.ITL),
                candidate.sortedValues(CompareMetric.ITL), new CompareStat[] {CompareStat.MEAN},
                BootstrapConfig.DEFAULT, 7)[0][0];
        double requestWidth = mean.absoluteCi().upper() - mean.absoluteCi().lower();
        assertTrue(requestWidth > 3 * (gapwise.upper() - gapwise.lower()), requestWidth + " vs " + gapwise);
        // per-token ITL of one token per event equals per-event ITL
        assertEquals(mean.candidate(), c.delta(CompareMetric.ITL_PER_TOKEN, CompareStat.MEAN).orElseThrow().candidate(),
                1e-9);
    }

    private static RunSamples paced(String label, long seed, int n, double factor) {
        SplittableRandom random = new SplittableRandom(seed);
        List<RequestMetrics> requests = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long gap = Math.round((8 + 4 * random.nextDouble()) * MS * factor);
            int[] tokens = new int[51];
            java.util.Arrays.fill(tokens, 1);
            requests.add(RequestMetrics.from(request(i).start(START_EPOCH_MICROS + i * 100_000L)
                    .evenEvents(100 * MS, gap, 51).eventTokens(tokens).e2e(100 * MS + 51 * gap).usage(500, 51).build(),
                    TokenCounting.DEFAULT));
        }
        return RunSamples.of(label, requests);
    }
}

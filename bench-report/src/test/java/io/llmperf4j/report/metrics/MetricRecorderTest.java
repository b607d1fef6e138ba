package io.llmperf4j.report.metrics;

import static io.llmperf4j.report.testutil.Records.MS;
import static io.llmperf4j.report.testutil.Records.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.FailureKind;
import io.llmperf4j.report.testutil.Records;
import java.util.List;
import java.util.SplittableRandom;
import org.HdrHistogram.DoubleHistogram;
import org.HdrHistogram.Histogram;
import org.apache.commons.math3.distribution.TDistribution;
import org.apache.commons.math3.stat.descriptive.DescriptiveStatistics;
import org.junit.jupiter.api.Test;

class MetricRecorderTest {

    /** Exact values: percentiles are numpy's linear interpolation to the last bit. */
    private static final double PRECISION = 1e-12;

    @Test
    void percentilesAreNumpyLinearOverExactValuesAndMomentsAreExact() {
        MetricRecorder recorder = new MetricRecorder();
        DescriptiveStatistics exact = new DescriptiveStatistics();
        for (int i = 1; i <= 10_000; i++) {
            long nanos = i * MS; // 1 ms .. 10 s
            recorder.recordValue(Metric.TTFT, nanos);
            exact.addValue(nanos);
        }
        MetricStats s = recorder.stats(Metric.TTFT);
        assertEquals(10_000, s.count());
        // numpy.percentile(range(1, 10001), p) ms: 5000.5, 9000.1, 9500.05, 9900.01, 9990.001
        assertWithin(5_000.5 * MS, s.p50());
        assertWithin(9_000.1 * MS, s.p90());
        assertWithin(9_500.05 * MS, s.p95());
        assertWithin(9_900.01 * MS, s.p99());
        assertWithin(9_990.001 * MS, s.p999());
        assertEquals(1 * MS, s.min());
        assertEquals(10_000 * MS, s.max());
        assertEquals(exact.getMean(), s.mean(), 1e-9 * exact.getMean());
        assertEquals(exact.getStandardDeviation(), s.stddev(), 1e-9 * exact.getStandardDeviation());
        double t = new TDistribution(9_999).inverseCumulativeProbability(0.975);
        double half = t * exact.getStandardDeviation() / Math.sqrt(10_000);
        assertEquals(exact.getMean() - half, s.meanCiLow(), 1e-6 * exact.getMean());
        assertEquals(exact.getMean() + half, s.meanCiHigh(), 1e-6 * exact.getMean());
    }

    @Test
    void percentilesNeverLeaveTheObservedRange() {
        MetricRecorder recorder = new MetricRecorder();
        recorder.recordValue(Metric.E2E_LATENCY, 1_234_567);
        MetricStats s = recorder.stats(Metric.E2E_LATENCY);
        // exact: no histogram bucket's top (1,234,943) leaks in
        for (Percentile p : Percentile.values()) assertEquals(1_234_567.0, s.percentile(p));
        assertEquals(1, s.count());
        assertTrue(Double.isNaN(s.stddev()));
        assertTrue(Double.isNaN(s.meanCiLow()));
    }

    @Test
    void anEmptyMetricIsAllNaN() {
        MetricStats s = new MetricRecorder().stats(Metric.ITL);
        assertTrue(s.isEmpty());
        assertTrue(Double.isNaN(s.p50()));
        assertTrue(Double.isNaN(s.mean()));
        assertTrue(Double.isNaN(s.min()));
    }

    @Test
    void ratesUseADoubleHistogramWithTheSamePrecision() {
        MetricRecorder recorder = new MetricRecorder();
        for (int i = 1; i <= 1_000; i++) recorder.recordValue(Metric.REQUEST_OUTPUT_THROUGHPUT, i * 0.25);
        MetricStats s = recorder.stats(Metric.REQUEST_OUTPUT_THROUGHPUT);
        assertWithin(125.125, s.p50());
        assertWithin(247.5025, s.p99());
        assertEquals(125.125, s.mean(), 1e-12);
        assertInstanceOf(DoubleHistogram.class, recorder.histogramCopy(Metric.REQUEST_OUTPUT_THROUGHPUT));
        assertInstanceOf(Histogram.class, recorder.histogramCopy(Metric.TTFT));
    }

    @Test
    void mergingEqualsRecordingEverythingInOne() {
        SplittableRandom random = new SplittableRandom(7);
        MetricRecorder all = new MetricRecorder();
        MetricRecorder first = new MetricRecorder();
        MetricRecorder second = new MetricRecorder();
        for (int i = 0; i < 5_000; i++) {
            long nanos = 50 * MS + random.nextLong(2_000 * MS);
            all.recordValue(Metric.ITL, nanos);
            (i % 3 == 0 ? first : second).recordValue(Metric.ITL, nanos);
        }
        MetricRecorder merged = new MetricRecorder().add(first).add(second);
        MetricStats expected = all.stats(Metric.ITL);
        MetricStats actual = merged.stats(Metric.ITL);
        assertEquals(expected.count(), actual.count());
        for (Percentile p : Percentile.values()) assertEquals(expected.percentile(p), actual.percentile(p));
        assertEquals(expected.min(), actual.min());
        assertEquals(expected.max(), actual.max());
        assertEquals(expected.mean(), actual.mean(), 1e-9 * expected.mean());
        assertEquals(expected.stddev(), actual.stddev(), 1e-9 * expected.stddev());

        // the merge took a snapshot: later values in a source do not leak into the merged recorder
        second.recordValue(Metric.ITL, 99_000 * MS);
        assertEquals(expected.count(), merged.stats(Metric.ITL).count());
        assertEquals(expected.max(), merged.stats(Metric.ITL).max());
        // and the merged recorder keeps recording on its own
        merged.recordValue(Metric.ITL, 1 * MS);
        assertEquals(expected.count() + 1, merged.stats(Metric.ITL).count());
        assertEquals(1 * MS, merged.stats(Metric.ITL).min());
    }

    @Test
    void valuesBeyondAnHourResizeInsteadOfFailing() {
        MetricRecorder recorder = new MetricRecorder();
        recorder.recordValue(Metric.E2E_LATENCY, 2 * MetricRecorder.HIGHEST_TRACKABLE_NANOS);
        assertEquals(2.0 * MetricRecorder.HIGHEST_TRACKABLE_NANOS, recorder.stats(Metric.E2E_LATENCY).p50());
    }

    @Test
    void negativeOrNaNValuesAreRejectedWithTheirName() {
        MetricRecorder recorder = new MetricRecorder();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> recorder.recordValue(Metric.TTFT, -5));
        assertEquals("ttft value (-5.0 ns) must be finite and >= 0", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> recorder.recordValue(Metric.TPOT, Double.NaN));
    }

    @Test
    void requestsRecordEveryDefinedValueAndFailuresNothing() {
        MetricRecorder recorder = new MetricRecorder();
        RequestMetrics ok = RequestMetrics.from(request(0).evenEvents(100 * MS, 10 * MS, 4).e2e(130 * MS)
                .usage(20, 4).build(), TokenCounting.DEFAULT);
        RequestMetrics failed = RequestMetrics.from(request(1).evenEvents(100 * MS, 10 * MS, 4).e2e(130 * MS)
                .failed(FailureKind.HTTP_STATUS, 500, "boom").build(), TokenCounting.DEFAULT);
        assertTrue(recorder.recordRequest(ok));
        assertFalse(recorder.recordRequest(failed));
        assertEquals(1, recorder.count(Metric.TTFT));
        assertEquals(1, recorder.count(Metric.TPOT));
        assertEquals(3, recorder.count(Metric.ITL));
        assertEquals(1, recorder.count(Metric.E2E_LATENCY));
        assertEquals(10.0 * MS, recorder.stats(Metric.ITL).p99());
        assertEquals(10.0 * MS, recorder.stats(Metric.TPOT).p50());
        assertEquals(MetricRecorder.of(List.of(ok, failed)).stats(), recorder.stats());
    }

    @Test
    void statsOfOneMetricAtATimeEqualTheRecordersToTheLastBit() {
        SplittableRandom random = new SplittableRandom(7);
        java.util.List<RequestMetrics> requests = new java.util.ArrayList<>();
        for (int i = 0; i < 300; i++) {
            int events = random.nextInt(0, 40);
            long[] offsets = new long[events];
            int[] tokens = new int[events];
            long at = random.nextLong(MS, 500 * MS);
            for (int e = 0; e < events; e++) {
                offsets[e] = at;
                at += random.nextLong(0, 30 * MS);
                tokens[e] = random.nextInt(0, 4); // some events complete no token, some several
            }
            Records r = request(i).events(offsets).e2e(at + random.nextLong(0, 5 * MS)).input(random.nextInt(1, 900))
                    .usage(random.nextBoolean() ? 40 : null, random.nextBoolean() ? events + 1 : null);
            if (random.nextInt(4) > 0) r.eventTokens(tokens);
            if (random.nextInt(5) == 0) r.reasoning(random.nextLong(0, MS));
            if (random.nextInt(10) == 0) r.failed(FailureKind.HTTP_STATUS, 500, "boom");
            requests.add(RequestMetrics.from(r.build(), TokenCounting.DEFAULT));
        }
        assertTrue(MetricRecorder.of(requests).count(Metric.ITL_PER_TOKEN) > 1000, "per-token samples were made");
        assertEquals(MetricRecorder.of(requests).stats(), MetricRecorder.statsOf(requests));
        assertEquals(MetricRecorder.of(List.of()).stats(), MetricRecorder.statsOf(List.of()));
    }

    private static void assertWithin(double expected, double actual) {
        assertEquals(expected, actual, expected * PRECISION, () -> "expected " + expected + " within 0.1%");
    }
}

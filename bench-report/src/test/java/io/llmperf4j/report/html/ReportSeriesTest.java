package io.llmperf4j.report.html;

import static io.llmperf4j.report.testutil.Records.MS;
import static io.llmperf4j.report.testutil.Records.request;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.jsonl.RequestJournal;
import io.llmperf4j.report.metrics.TokenCounting;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportSeriesTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long T0 = 1_700_000_000_000_000L; // epoch micros

    @Test
    void empiricalCdfIsSortedMonotonicAndEndsAtOne() {
        ReportSeries.Cdf cdf = ReportSeries.empiricalCdf(new double[] {300, 100, Double.NaN, 200, 200, 50});
        assertArrayEquals(new double[] {50, 100, 200, 200, 300}, cdf.values());
        assertArrayEquals(new double[] {0.2, 0.4, 0.6, 0.8, 1.0}, cdf.fractions(), 1e-12);
        double[][] steps = cdf.stepPoints();
        assertEquals(50, steps[0][0]);
        assertEquals(0, steps[1][0], "a CDF starts at 0");
        assertEquals(1.0, steps[1][steps[1].length - 1]);
        assertEquals(0, ReportSeries.empiricalCdf(new double[0]).size());
    }

    @Test
    void thinningKeepsBothEndsAndTheOrder() {
        double[] values = new double[10_001];
        for (int i = 0; i < values.length; i++) values[i] = Math.exp(i / 1000.0);
        ReportSeries.Cdf full = ReportSeries.empiricalCdf(values);
        ReportSeries.Cdf thin = full.thinned(1000);
        assertEquals(1000, thin.size());
        assertEquals(full.values()[0], thin.values()[0]);
        assertEquals(full.values()[full.size() - 1], thin.values()[999]);
        assertEquals(1.0 / values.length, thin.fractions()[0], 1e-15);
        assertEquals(1.0, thin.fractions()[999]);
        for (int i = 1; i < thin.size(); i++) {
            assertTrue(thin.values()[i] >= thin.values()[i - 1]);
            assertTrue(thin.fractions()[i] > thin.fractions()[i - 1]);
        }
        assertSame(full, full.thinned(20_000));
        assertThrows(IllegalArgumentException.class, () -> full.thinned(1));
    }

    @Test
    void tokensPerSecondBucketsSumToTheRunsOutputTokens() {
        BenchmarkRun run = ReportFixtures.run(ReportFixtures.settings("m"));
        RunMetrics metrics = RunMetrics.of(run, MetricsConfig.DEFAULT);
        long origin = run.startEpochMillis() * 1_000_000L;
        ReportSeries.TimeBuckets b = ReportSeries.timeBuckets(run.records(), TokenCounting.DEFAULT, origin,
                run.durationNanos(), SECOND);
        assertEquals(metrics.totalOutputTokens(), b.totalOutputTokens(), 1e-6);
        assertEquals(36 * 30, metrics.totalOutputTokens());
        assertEquals(36, b.requestsWithEvents());
        assertEquals(0, b.requestsSpreadEvenly());
        assertEquals((run.durationNanos() + SECOND - 1) / SECOND, b.size());
        double rateSum = Arrays.stream(b.outputTokensPerSecond()).sum() * b.bucketSeconds();
        assertEquals(metrics.totalOutputTokens(), rateSum, 1e-6);
        // in flight: request-seconds are conserved, the peak never exceeds the concurrency of 4
        double e2eSeconds = run.records().stream().mapToLong(RequestRecord::e2eNanos).sum() / 1e9;
        assertEquals(e2eSeconds, Arrays.stream(b.meanInFlight()).sum() * b.bucketSeconds(), 1e-9);
        assertEquals(4, b.maxInFlight());
    }

    @Test
    void tokensLandInTheBucketOfTheirEvent() {
        // 10 tokens over 5 events: 2 per event, events at 0.9 s, 1.1 s, 1.2 s, 2.5 s, 3.0 s after the send
        RequestRecord r = request(0).start(T0).events(900 * MS, 1100 * MS, 1200 * MS, 2500 * MS, 3000 * MS)
                .e2e(3001 * MS).usage(10, 10).build();
        ReportSeries.TimeBuckets b = ReportSeries.timeBuckets(List.of(r), TokenCounting.DEFAULT, T0 * 1000, 0, SECOND);
        assertArrayEquals(new double[] {2, 4, 2, 2}, b.outputTokens(), 1e-12);
        assertArrayEquals(new int[] {1, 1, 1, 1}, b.peakInFlight());
        assertArrayEquals(new double[] {1, 1, 1, 0.001}, b.meanInFlight(), 1e-9);
    }

    @Test
    void tokensFollowTheTokensEachEventCarriedSoBurstsAndStallsShow(@TempDir Path dir) throws IOException {
        // two single tokens in the first second, a stall, then a burst of 8 + 2 tokens after 2.5 s
        RequestRecord bunched = request(0).start(T0).events(100 * MS, 200 * MS, 2500 * MS, 2600 * MS)
                .eventTokens(1, 1, 8, 2).e2e(2700 * MS).usage(10, 12).build();
        // the server counted twice the client's tokens: the shares keep the client's proportions and sum to n = 24
        RequestRecord serverCounts = request(1).start(T0).events(100 * MS, 1500 * MS).eventTokens(3, 9)
                .e2e(1600 * MS).usage(10, 24).build();
        // events without the client's tokens per event (e.g. --tokenizer server): the server's n split over them
        RequestRecord uncounted = request(2).start(T0).events(100 * MS, 3500 * MS).e2e(3600 * MS).usage(10, 4).build();
        // no event times (non-streaming, or read from the CSV): spread evenly from TTFT to the end
        RequestRecord noEvents = request(3).start(T0).ttft(2 * SECOND).e2e(4 * SECOND).usage(10, 6).build();

        // read back through requests.jsonl, as `llmperf4j report DIR` does
        try (RequestJournal journal = RequestJournal.create(dir)) {
            List.of(bunched, serverCounts, uncounted, noEvents).forEach(journal::append);
        }
        List<RequestRecord> records = RequestJournal.read(dir.resolve(RequestJournal.FILE_NAME));

        ReportSeries.TimeBuckets only = ReportSeries.timeBuckets(records.subList(0, 1), TokenCounting.DEFAULT,
                T0 * 1000, 0, SECOND);
        assertArrayEquals(new double[] {2, 0, 10}, only.outputTokens(), 1e-12);

        ReportSeries.TimeBuckets b = ReportSeries.timeBuckets(records, TokenCounting.DEFAULT, T0 * 1000, 0, SECOND);
        assertArrayEquals(new double[] {2 + 6 + 2, 18, 10 + 3, 2 + 3}, b.outputTokens(), 1e-12);
        assertEquals(12 + 24 + 4 + 6, b.totalOutputTokens(), 1e-9);
        assertEquals(3, b.requestsWithEvents());
        assertEquals(3, b.requestsWithEventTokens());
        assertEquals(1, b.requestsSpreadEvenly());
    }

    @Test
    void withoutEventTimesTokensAreSpreadFromFirstTokenToEnd() {
        // as read back from the CSV: TTFT 1 s, end 3 s, 40 tokens: 20 per second over [1 s, 3 s)
        RequestRecord r = request(0).start(T0).ttft(SECOND).e2e(3 * SECOND).usage(10, 40).build();
        RequestRecord failed = request(1).start(T0).e2e(2 * SECOND).usage(10, 99)
                .failed(FailureKind.IDLE_TIMEOUT, -1, "idle").build();
        ReportSeries.TimeBuckets b = ReportSeries.timeBuckets(List.of(r, failed), TokenCounting.DEFAULT, T0 * 1000, 0,
                SECOND);
        assertArrayEquals(new double[] {0, 20, 20}, b.outputTokens(), 1e-9);
        assertEquals(1, b.requestsSpreadEvenly());
        assertArrayEquals(new int[] {2, 2, 1}, b.peakInFlight());
        assertArrayEquals(new double[] {2, 2, 1}, b.meanInFlight(), 1e-9);
    }

    @Test
    void peakCountsOverlapsInsideABucket() {
        // three requests of 200 ms inside the first second: two overlap, the third comes after
        List<RequestRecord> records = List.of(
                request(0).start(T0).e2e(200 * MS).build(),
                request(1).start(T0 + 100_000).e2e(200 * MS).build(),
                request(2).start(T0 + 500_000).e2e(200 * MS).build(),
                // a request that starts in bucket 1 and runs to bucket 3
                request(3).start(T0 + 1_500_000).e2e(2 * SECOND).build());
        ReportSeries.TimeBuckets b = ReportSeries.timeBuckets(records, TokenCounting.DEFAULT, T0 * 1000, 0, SECOND);
        assertArrayEquals(new int[] {2, 1, 1, 1}, b.peakInFlight());
    }

    @Test
    void longRunsUseWiderBuckets() {
        assertEquals(SECOND, ReportSeries.bucketNanosFor(600 * SECOND));
        assertEquals(SECOND, ReportSeries.bucketNanosFor(3600 * SECOND));
        assertEquals(2 * SECOND, ReportSeries.bucketNanosFor(3601 * SECOND));
        assertEquals(30 * SECOND, ReportSeries.bucketNanosFor(24 * 3600 * SECOND));
    }

    @Test
    void errorsAreGroupedByKindAndCodeWithDistinctExamples() {
        List<RequestRecord> records = List.of(
                request(0).failed(FailureKind.HTTP_STATUS, 503, "busy").build(),
                request(1).failed(FailureKind.HTTP_STATUS, 503, "busy").build(),
                request(2).failed(FailureKind.HTTP_STATUS, 503, "overloaded").build(),
                request(3).failed(FailureKind.HTTP_STATUS, 401, "key sk-AbCdEf0123456789XyZabcdef is invalid").build(),
                request(4).evenEvents(MS, MS, 2).usage(1, 2).build());
        List<ReportSeries.ErrorGroup> groups = ReportSeries.errorGroups(records, 3);
        assertEquals(2, groups.size());
        assertEquals(new ReportSeries.ErrorGroup(FailureKind.HTTP_STATUS, 503, 3, 2, List.of("busy", "overloaded")),
                groups.get(0));
        assertEquals(List.of("key [REDACTED] is invalid"), groups.get(1).examples());
        assertEquals(1, ReportSeries.errorGroups(records, 1).get(0).examples().size());
    }
}

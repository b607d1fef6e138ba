package io.llmperf4j.report.html;

import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.metrics.RequestMetrics;
import io.llmperf4j.report.summary.SummaryDocument;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The time frame of the report's over-time charts, and the TTFT-over-time points: derived from the summary's run
 * window and the request records, with TTFT read from the one metric view ({@link RequestMetrics}). No drawing here.
 *
 * @param originEpochNanos wall-clock time of the charts' 0: the run's start, or the first send when earlier
 * @param spanNanos        the run's window from the origin
 * @param extentNanos      the span, stretched to the last response's end
 * @param bucketNanos      the bucket width for that extent ({@link ReportSeries#bucketNanosFor})
 */
record Timeline(long originEpochNanos, long spanNanos, long extentNanos, long bucketNanos) {

    private static final double NANOS_PER_SECOND = 1e9;
    private static final double NANOS_PER_MILLI = 1e6;

    /** The frame of a run: its summary's start and duration, and its records' sends and ends. */
    static Timeline of(SummaryDocument summary, List<RequestRecord> records) {
        long runStart = runStartEpochNanos(summary);
        long origin = runStart;
        for (RequestRecord r : records) {
            long send = ReportSeries.sendEpochNanos(r);
            origin = origin == Long.MIN_VALUE ? send : Math.min(origin, send);
        }
        if (origin == Long.MIN_VALUE) origin = 0;
        long span = summary.run() == null ? 0 : Math.round(summary.run().durationS() * NANOS_PER_SECOND);
        if (runStart != Long.MIN_VALUE) span += runStart - origin;
        long extent = span;
        for (RequestRecord r : records) extent = Math.max(extent, ReportSeries.endEpochNanos(r) - origin);
        return new Timeline(origin, span, extent, ReportSeries.bucketNanosFor(extent));
    }

    /** "1-s", "5-min": a bucket width in words. */
    String bucketWidth() {
        long s = bucketNanos / 1_000_000_000L;
        return s % 60 == 0 && s >= 60 ? (s / 60) + "-min" : s + "-s";
    }

    /**
     * One request on the TTFT-over-time chart.
     *
     * @param sendSeconds send time since the origin
     * @param ttftMs      its TTFT
     * @param title       the hover text
     * @param succeeded   false for a request that received content and failed later
     */
    record TtftPoint(double sendSeconds, double ttftMs, String title, boolean succeeded) {
    }

    /**
     * The requests with a TTFT (failures that had received content included), every {@code stride}-th so that at
     * most {@code maxPoints} are drawn.
     */
    List<TtftPoint> ttftPoints(List<RequestMetrics> requests, int maxPoints) {
        List<RequestMetrics> withTtft = requests.stream().filter(r -> r.ttftNanos().isPresent()).toList();
        int stride = stride(withTtft.size(), maxPoints);
        List<TtftPoint> points = new ArrayList<>();
        for (int i = 0; i < withTtft.size(); i += stride) {
            RequestMetrics r = withTtft.get(i);
            double x = (r.startEpochMicros() * 1_000L - originEpochNanos) / NANOS_PER_SECOND;
            double y = r.ttftNanos().getAsLong() / NANOS_PER_MILLI;
            String title = String.format(Locale.ROOT, "%s: TTFT %.1f ms at %.2f s", r.clientRequestId(), y, x);
            points.add(new TtftPoint(x, y, r.succeeded() ? title : title + " (" + r.failureKind() + ")",
                    r.succeeded()));
        }
        return points;
    }

    /** How many requests with a TTFT there are per drawn point. */
    static int stride(int count, int maxPoints) {
        return Math.max(1, (count + maxPoints - 1) / maxPoints);
    }

    private static long runStartEpochNanos(SummaryDocument summary) {
        if (summary.run() == null || summary.run().startTime() == null) return Long.MIN_VALUE;
        try {
            Instant start = Instant.parse(summary.run().startTime());
            return start.getEpochSecond() * 1_000_000_000L + start.getNano();
        } catch (DateTimeParseException e) {
            return Long.MIN_VALUE;
        }
    }
}

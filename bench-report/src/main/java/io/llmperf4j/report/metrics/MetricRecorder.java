package io.llmperf4j.report.metrics;

import io.llmperf4j.model.Percentiles;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.DoubleConsumer;
import org.HdrHistogram.EncodableHistogram;
import org.apache.commons.math3.distribution.TDistribution;
import org.apache.commons.math3.stat.descriptive.AggregateSummaryStatistics;
import org.apache.commons.math3.stat.descriptive.StatisticalSummary;
import org.apache.commons.math3.stat.descriptive.SummaryStatistics;

/**
 * Records llmperf4j's per-request metrics: every value of every {@link Metric}, exactly, plus exact moments
 * (Commons Math {@link SummaryStatistics}: count, min, max, mean, variance). Percentiles are llmperf4j's one
 * definition, {@link Percentiles} (numpy's linear interpolation over the exact values), the same code the engine's
 * sweep rows and {@code compare} use, so they agree to the digit. Two recorders
 * {@linkplain #add(MetricRecorder) merge} losslessly (values concatenate, moments aggregate), so iterations, runs or
 * threads can each record and be combined afterwards. Memory is 8 bytes a value; the records the values come from
 * hold as much already.
 *
 * <p>{@link #histogramCopy} builds an HdrHistogram from the values on demand, for {@code HistogramLogWriter}:
 * latencies in nanoseconds from {@value #LOWEST_DISCERNIBLE_NANOS} ns (1 µs) to {@value #HIGHEST_TRACKABLE_NANOS}
 * ns (1 h, auto-resizing beyond) at {@value #SIGNIFICANT_VALUE_DIGITS} significant digits; token counts an
 * auto-resizing integer histogram, tokens per second a {@code DoubleHistogram}, both at 3 digits.
 *
 * <p>Not thread-safe: give each thread its own recorder and merge, as with {@code org.HdrHistogram.Histogram}.
 */
public final class MetricRecorder {

    /** The smallest latency the exported histograms tell apart from 0: 1 µs. */
    public static final long LOWEST_DISCERNIBLE_NANOS = 1_000L;
    /** The latency range allocated up front: 1 h. Larger values resize the histogram. */
    public static final long HIGHEST_TRACKABLE_NANOS = 3_600_000_000_000L;
    /** Relative precision of every exported histogram: 3 significant digits (0.1 %). */
    public static final int SIGNIFICANT_VALUE_DIGITS = 3;
    /** Confidence level of the mean's Student-t interval. */
    public static final double MEAN_CONFIDENCE_LEVEL = 0.95;

    private final Map<Metric, Channel> channels = new EnumMap<>(Metric.class);

    public MetricRecorder() {
        for (Metric metric : Metric.values()) {
            channels.put(metric, new Channel(new Values(), new SummaryStatistics(), null));
        }
    }

    private MetricRecorder(Map<Metric, Channel> copied) {
        channels.putAll(copied);
    }

    /** A recorder holding every defined value of the successful requests among {@code requests}. */
    public static MetricRecorder of(Collection<RequestMetrics> requests) {
        MetricRecorder recorder = new MetricRecorder();
        requests.forEach(recorder::recordRequest);
        return recorder;
    }

    /**
     * Records one value in the metric's base unit (nanoseconds, tokens, tokens per second), as given.
     *
     * @throws IllegalArgumentException if {@code value} is negative, NaN or infinite
     */
    public void recordValue(Metric metric, double value) {
        checkValue(metric, value);
        Channel channel = channels.get(metric);
        channel.values.add(value);
        channel.live.addValue(value);
    }

    /**
     * Records every defined metric of a successful request: TTFT, TTFRT, TPOT, each ITL gap and per-token ITL
     * sample, E2E, output tokens per second, output and input tokens. Failed requests are not part of the distributions (as in every tool
     * surveyed); for them nothing is recorded and the result is false.
     */
    public boolean recordRequest(RequestMetrics request) {
        if (!request.succeeded()) return false;
        for (Metric metric : Metric.values()) {
            eachValue(metric, request, v -> recordValue(metric, v));
        }
        return true;
    }

    /**
     * The statistics of every metric over the successful requests among {@code requests}, in {@link Metric} order:
     * the same numbers as {@code of(requests).stats()} (the same values in the same order into the same moments),
     * computed one metric at a time. Only one metric's values are held at once, in an array of their exact number
     * sorted in place: for 1,024 requests of 256 tokens, 2 MB, where a recorder holds two ITL channels grown by
     * doubling (up to 4 MB each) and a sorted copy of each while computing.
     */
    public static Map<Metric, MetricStats> statsOf(Collection<RequestMetrics> requests) {
        Map<Metric, MetricStats> all = new EnumMap<>(Metric.class);
        for (Metric metric : Metric.values()) {
            // counted by the same walk that fills the array below, so the two cannot disagree
            int[] count = {0};
            for (RequestMetrics request : requests) {
                if (request.succeeded()) eachValue(metric, request, v -> count[0]++);
            }
            double[] values = new double[count[0]];
            SummaryStatistics moments = new SummaryStatistics();
            int[] next = {0};
            for (RequestMetrics request : requests) {
                if (!request.succeeded()) continue;
                eachValue(metric, request, v -> {
                    checkValue(metric, v);
                    values[next[0]++] = v;
                    moments.addValue(v);
                });
            }
            Arrays.sort(values);
            all.put(metric, stats(metric, aggregate(moments), values));
        }
        return Collections.unmodifiableMap(all);
    }

    /** Hands the values of {@code metric} of a successful {@code request} to {@code sink}, in arrival order. */
    private static void eachValue(Metric metric, RequestMetrics request, DoubleConsumer sink) {
        switch (metric) {
            case TTFT -> request.ttftNanos().ifPresent(v -> sink.accept(v));
            case TTFRT -> request.timeToFirstReasoningNanos().ifPresent(v -> sink.accept(v));
            case TPOT -> request.tpotNanos().ifPresent(sink);
            case ITL -> {
                for (int i = 0; i < request.itlCount(); i++) sink.accept(request.itlNanos(i));
            }
            case ITL_PER_TOKEN -> request.forEachItlPerTokenNanos(sink);
            case E2E_LATENCY -> sink.accept(request.e2eNanos());
            case REQUEST_OUTPUT_THROUGHPUT -> request.outputTokensPerSecond().ifPresent(sink);
            case OUTPUT_TOKENS -> request.outputTokens().ifPresent(v -> sink.accept(v));
            case INPUT_TOKENS -> sink.accept(request.inputTokens());
        }
    }

    private static void checkValue(Metric metric, double value) {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(metric.name().toLowerCase(java.util.Locale.ROOT) + " value (" + value
                    + " " + metric.unit().baseName() + ") must be finite and >= 0");
        }
    }

    /** Adds everything {@code other} recorded into this recorder; {@code other} is unchanged. Returns this. */
    public MetricRecorder add(MetricRecorder other) {
        Objects.requireNonNull(other, "other");
        for (Metric metric : Metric.values()) {
            Channel mine = channels.get(metric);
            Channel theirs = other.channels.get(metric);
            mine.values.addAll(theirs.values);
            StatisticalSummary merged = aggregate(mine.merged, theirs.merged, theirs.live);
            channels.put(metric, new Channel(mine.values, mine.live, merged));
        }
        return this;
    }

    /** An independent copy. */
    public MetricRecorder copy() {
        Map<Metric, Channel> copied = new EnumMap<>(Metric.class);
        channels.forEach((metric, c) -> copied.put(metric, new Channel(c.values.copy(), c.live.copy(), c.merged)));
        return new MetricRecorder(copied);
    }

    /** How many values of {@code metric} were recorded. */
    public long count(Metric metric) {
        return channels.get(metric).values.size();
    }

    /**
     * A copy of the metric's histogram, for {@code HistogramLogWriter} or further analysis: an
     * {@code org.HdrHistogram.Histogram} of nanoseconds or tokens, or a {@code DoubleHistogram} of tokens per
     * second.
     */
    public EncodableHistogram histogramCopy(Metric metric) {
        MetricHistogram histogram = MetricHistogram.forUnit(metric.unit());
        Values values = channels.get(metric).values;
        for (int i = 0; i < values.size(); i++) histogram.record(values.get(i));
        return histogram.encodableCopy();
    }

    /** The statistics of every metric, in {@link Metric} order. */
    public Map<Metric, MetricStats> stats() {
        Map<Metric, MetricStats> all = new EnumMap<>(Metric.class);
        for (Metric metric : Metric.values()) all.put(metric, stats(metric));
        return Collections.unmodifiableMap(all);
    }

    /** The statistics of one metric; see {@link MetricStats} for how each is computed. */
    public MetricStats stats(Metric metric) {
        Channel channel = channels.get(metric);
        return stats(metric, aggregate(channel.merged, channel.live), channel.values.sorted());
    }

    /** The statistics of one metric from its moments and its values, sorted. */
    private static MetricStats stats(Metric metric, StatisticalSummary moments, double[] sorted) {
        long n = moments == null ? 0 : moments.getN();
        if (n == 0) return MetricStats.empty(metric);
        double min = moments.getMin();
        double max = moments.getMax();
        double mean = moments.getMean();
        double stddev = n >= 2 ? Math.sqrt(moments.getVariance()) : Double.NaN;
        double ciLow = Double.NaN;
        double ciHigh = Double.NaN;
        if (n >= 2) {
            double t = new TDistribution(null, n - 1).inverseCumulativeProbability(0.5 + MEAN_CONFIDENCE_LEVEL / 2);
            double halfWidth = t * stddev / Math.sqrt(n);
            ciLow = mean - halfWidth;
            ciHigh = mean + halfWidth;
        }
        double[] p = new double[Percentile.values().length];
        for (Percentile percentile : Percentile.values()) {
            p[percentile.ordinal()] = Percentiles.ofSorted(sorted, percentile.percent());
        }
        return new MetricStats(metric, n, min, max, mean, stddev, p[0], p[1], p[2], p[3], p[4], ciLow, ciHigh);
    }

    /** Commons Math's aggregate of the non-empty parts (empty ones would poison it with NaN), or null if none. */
    private static StatisticalSummary aggregate(StatisticalSummary... parts) {
        List<StatisticalSummary> nonEmpty = new ArrayList<>(parts.length);
        for (StatisticalSummary part : parts) {
            if (part != null && part.getN() > 0) nonEmpty.add(part);
        }
        // Always a snapshot: a live SummaryStatistics of another recorder must not leak into this one.
        return nonEmpty.isEmpty() ? null : AggregateSummaryStatistics.aggregate(nonEmpty);
    }

    /**
     * One metric: its values, the moments of values recorded here, and the aggregated moments of recorders
     * merged in (null until a merge).
     */
    private record Channel(Values values, SummaryStatistics live, StatisticalSummary merged) {
    }

    /** A growable array of doubles (no boxing: a run can pool millions of ITL gaps). */
    private static final class Values {
        private double[] data = new double[16];
        private int size;

        void add(double value) {
            if (size == data.length) data = Arrays.copyOf(data, size * 2);
            data[size++] = value;
        }

        void addAll(Values other) {
            if (size + other.size > data.length) data = Arrays.copyOf(data, Math.max(data.length * 2, size + other.size));
            System.arraycopy(other.data, 0, data, size, other.size);
            size += other.size;
        }

        int size() {
            return size;
        }

        double get(int i) {
            return data[i];
        }

        double[] sorted() {
            double[] copy = Arrays.copyOf(data, size);
            Arrays.sort(copy);
            return copy;
        }

        Values copy() {
            Values copy = new Values();
            copy.data = Arrays.copyOf(data, Math.max(16, size));
            copy.size = size;
            return copy;
        }
    }
}

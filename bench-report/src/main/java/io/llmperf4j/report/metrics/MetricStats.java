package io.llmperf4j.report.metrics;

import java.util.Objects;

/**
 * The statistics of one metric, in its {@linkplain MetricUnit#baseName() recorded unit}. Undefined values are
 * NaN: everything but {@code count} when there is no value, {@code stddev} and the mean's confidence interval
 * when there is one.
 *
 * <p>Percentiles are llmperf4j's one definition, {@link io.llmperf4j.model.Percentiles}: numpy's linear
 * interpolation between the two neighbouring exact values, so a percentile never lies outside them. {@code min},
 * {@code max}, {@code mean} and {@code stddev} are exact (Commons Math over every recorded value).
 *
 * @param metric     which metric
 * @param count      how many values were recorded
 * @param min        the smallest value
 * @param max        the largest value
 * @param mean       the arithmetic mean
 * @param stddev     the sample standard deviation (n − 1 denominator)
 * @param p50        the median
 * @param p90        the 90th percentile
 * @param p95        the 95th percentile
 * @param p99        the 99th percentile
 * @param p999       the 99.9th percentile
 * @param meanCiLow  the lower end of the mean's Student-t confidence interval
 *                   ({@link MetricRecorder#MEAN_CONFIDENCE_LEVEL})
 * @param meanCiHigh its upper end
 */
public record MetricStats(
        Metric metric,
        long count,
        double min,
        double max,
        double mean,
        double stddev,
        double p50,
        double p90,
        double p95,
        double p99,
        double p999,
        double meanCiLow,
        double meanCiHigh) {

    public MetricStats {
        Objects.requireNonNull(metric, "metric");
        if (count < 0) throw new IllegalArgumentException("count (" + count + ") must be >= 0");
    }

    /** The statistics of a metric without values: count 0, everything else NaN. */
    public static MetricStats empty(Metric metric) {
        double nan = Double.NaN;
        return new MetricStats(metric, 0, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan);
    }

    /** True when no value was recorded. */
    public boolean isEmpty() {
        return count == 0;
    }

    /** The value of one reported percentile. */
    public double percentile(Percentile percentile) {
        return switch (percentile) {
            case P50 -> p50;
            case P90 -> p90;
            case P95 -> p95;
            case P99 -> p99;
            case P99_9 -> p999;
        };
    }
}

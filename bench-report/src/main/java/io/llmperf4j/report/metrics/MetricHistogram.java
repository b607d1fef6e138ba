package io.llmperf4j.report.metrics;

import org.HdrHistogram.DoubleHistogram;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;

/**
 * One metric's HdrHistogram: an integer {@link Histogram} for nanoseconds and token counts, a
 * {@link DoubleHistogram} for rates. Both auto-resize, so no value is ever out of range, and both merge.
 */
final class MetricHistogram {

    private final Histogram integral;
    private final DoubleHistogram decimal;

    private MetricHistogram(Histogram integral, DoubleHistogram decimal) {
        this.integral = integral;
        this.decimal = decimal;
    }

    static MetricHistogram forUnit(MetricUnit unit) {
        return switch (unit) {
            case NANOSECONDS -> {
                Histogram histogram = new Histogram(MetricRecorder.LOWEST_DISCERNIBLE_NANOS,
                        MetricRecorder.HIGHEST_TRACKABLE_NANOS, MetricRecorder.SIGNIFICANT_VALUE_DIGITS);
                histogram.setAutoResize(true);
                yield new MetricHistogram(histogram, null);
            }
            case TOKENS -> new MetricHistogram(new Histogram(MetricRecorder.SIGNIFICANT_VALUE_DIGITS), null);
            case TOKENS_PER_SECOND ->
                    new MetricHistogram(null, new DoubleHistogram(MetricRecorder.SIGNIFICANT_VALUE_DIGITS));
        };
    }

    void record(double value) {
        if (integral != null) {
            integral.recordValue(Math.round(value));
        } else {
            decimal.recordValue(value);
        }
    }

    long totalCount() {
        return integral != null ? integral.getTotalCount() : decimal.getTotalCount();
    }

    /** HdrHistogram's value at a percentile: the highest value equivalent to the one found. */
    double valueAtPercentile(double percentile) {
        return integral != null ? integral.getValueAtPercentile(percentile) : decimal.getValueAtPercentile(percentile);
    }

    void add(MetricHistogram other) {
        if (integral != null) {
            integral.add(other.integral);
        } else {
            decimal.add(other.decimal);
        }
    }

    MetricHistogram copy() {
        return integral != null ? new MetricHistogram(integral.copy(), null) : new MetricHistogram(null, decimal.copy());
    }

    EncodableHistogram encodableCopy() {
        return integral != null ? integral.copy() : decimal.copy();
    }
}

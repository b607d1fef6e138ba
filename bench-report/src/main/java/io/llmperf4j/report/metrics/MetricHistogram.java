package io.llmperf4j.report.metrics;

import org.HdrHistogram.DoubleHistogram;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;

/**
 * One metric's HdrHistogram, built for export ({@link MetricRecorder#histogramCopy}): an integer {@link Histogram}
 * for nanoseconds and token counts, a {@link DoubleHistogram} for rates. Both auto-resize, so no value is ever out
 * of range. The reported percentiles never come from here (see {@link io.llmperf4j.model.Percentiles}).
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

    EncodableHistogram encodableCopy() {
        return integral != null ? integral.copy() : decimal.copy();
    }
}

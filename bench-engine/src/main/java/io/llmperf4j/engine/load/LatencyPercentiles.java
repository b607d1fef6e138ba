package io.llmperf4j.engine.load;

import org.HdrHistogram.AbstractHistogram;

/**
 * Percentiles of a nanosecond histogram (HdrHistogram, 3 significant digits: a value is reported as the highest
 * value equivalent to it, at most 0.1 % above). All zero with {@code count} 0 when nothing was recorded.
 */
public record LatencyPercentiles(long count, double meanNanos, long p50Nanos, long p90Nanos, long p99Nanos,
                                 long p999Nanos, long maxNanos) {

    public static LatencyPercentiles of(AbstractHistogram h) {
        if (h.getTotalCount() == 0) return new LatencyPercentiles(0, Double.NaN, 0, 0, 0, 0, 0);
        return new LatencyPercentiles(h.getTotalCount(), h.getMean(), h.getValueAtPercentile(50),
                h.getValueAtPercentile(90), h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue());
    }

    public double p50Millis() {
        return p50Nanos / 1e6;
    }

    public double p99Millis() {
        return p99Nanos / 1e6;
    }
}

package io.llmperf4j.engine.load;

import io.llmperf4j.model.Percentiles;
import org.HdrHistogram.AbstractHistogram;

import java.util.Arrays;

/**
 * Percentiles of nanosecond latencies. {@link #of(long[])} uses llmperf4j's one percentile definition,
 * {@link Percentiles} (numpy's linear interpolation over the exact values), as the summary does, so an open loop's
 * "from the actual send" figures equal the summary's to the last digit; {@link #of(AbstractHistogram)} keeps
 * HdrHistogram's nearest rank for micro-benchmarks only. All zero with {@code count} 0 when nothing was recorded.
 */
public record LatencyPercentiles(long count, double meanNanos, double p50Nanos, double p90Nanos, double p99Nanos,
                                 double p999Nanos, double maxNanos) {

    private static final LatencyPercentiles NONE = new LatencyPercentiles(0, Double.NaN, 0, 0, 0, 0, 0);

    /** The one percentile definition over the exact values (any order; NaN-free). */
    public static LatencyPercentiles of(long[] nanos) {
        if (nanos.length == 0) return NONE;
        double[] sorted = new double[nanos.length];
        double sum = 0;
        for (int i = 0; i < nanos.length; i++) {
            sorted[i] = nanos[i];
            sum += nanos[i];
        }
        Arrays.sort(sorted);
        return new LatencyPercentiles(sorted.length, sum / sorted.length, Percentiles.ofSorted(sorted, 50),
                Percentiles.ofSorted(sorted, 90), Percentiles.ofSorted(sorted, 99), Percentiles.ofSorted(sorted, 99.9),
                sorted[sorted.length - 1]);
    }

    /** HdrHistogram's nearest rank (values up to 0.1 % high at 3 digits); for micro-benchmarks, not results. */
    public static LatencyPercentiles of(AbstractHistogram h) {
        if (h.getTotalCount() == 0) return NONE;
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

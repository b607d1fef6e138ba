package io.llmperf4j.report.stats;

import io.llmperf4j.model.Percentiles;
import java.util.Arrays;

/**
 * The pandas {@code Series} statistics llmperf summarises with, reproduced to the last bit (pandas 1.5 on numpy
 * 1.24, no bottleneck; checked against a summary file llmperf wrote). Rounding order matters at that level, so
 * the sums follow numpy's float64 {@code add.reduce}, not a plain loop.
 *
 * <p>All methods take NaN-free values (llmperf drops NaN first) and return NaN where pandas does: every
 * statistic of an empty series, and the sample standard deviation of fewer than two values.
 */
public final class PandasStats {

    /** numpy's reduction hands the inner loop at most this many elements at a time (its buffer size). */
    private static final int NUMPY_BUFFER_ELEMENTS = 8192;
    /** numpy's pairwise summation sums blocks up to this size with 8 accumulators. */
    private static final int PAIRWISE_BLOCK = 128;
    private static final int UNROLL = 8;

    private PandasStats() {
    }

    /** {@code numpy.sum} of float64 values: pairwise summation inside each 8192-element chunk. */
    public static double sum(double[] values) {
        double total = 0.0;
        for (int from = 0; from < values.length; from += NUMPY_BUFFER_ELEMENTS) {
            total += pairwiseSum(values, from, Math.min(NUMPY_BUFFER_ELEMENTS, values.length - from));
        }
        return total;
    }

    /** {@code Series.mean()}: the numpy sum divided by the count. */
    public static double mean(double[] values) {
        if (values.length == 0) return Double.NaN;
        return sum(values) / values.length;
    }

    /**
     * {@code Series.std()}: the sample standard deviation (ddof = 1) by pandas' two-pass {@code nanvar}:
     * {@code sqrt(sum((mean - x)^2) / (n - 1))}.
     */
    public static double sampleStddev(double[] values) {
        int n = values.length;
        if (n <= 1) return Double.NaN;
        double average = sum(values) / n;
        double[] squares = new double[n];
        for (int i = 0; i < n; i++) {
            double deviation = average - values[i];
            squares[i] = deviation * deviation;
        }
        return Math.sqrt(sum(squares) / (n - 1));
    }

    /** {@code Series.min()}, NaN when empty. */
    public static double min(double[] values) {
        return values.length == 0 ? Double.NaN : Arrays.stream(values).min().getAsDouble();
    }

    /** {@code Series.max()}, NaN when empty. */
    public static double max(double[] values) {
        return values.length == 0 ? Double.NaN : Arrays.stream(values).max().getAsDouble();
    }

    /**
     * {@code Series.quantile(q)} with pandas' default linear interpolation, as numpy's {@code percentile}
     * computes it: position {@code (n - 1) * q} between the two neighbouring order statistics, with numpy's
     * lerp (which interpolates from the upper neighbour when the fraction is at least one half).
     *
     * @param sortedAscending the values, sorted
     * @param q               the quantile in [0, 1]
     */
    public static double quantile(double[] sortedAscending, double q) {
        // pandas hands numpy q*100 and numpy divides by 100 again: the shared definition takes the percent
        return Percentiles.ofSorted(sortedAscending, q * 100.0);
    }

    /** numpy's {@code pairwise_sum} for doubles (loops_utils.h.src). */
    private static double pairwiseSum(double[] a, int from, int n) {
        if (n < UNROLL) {
            double result = -0.0;
            for (int i = 0; i < n; i++) result += a[from + i];
            return result;
        }
        if (n <= PAIRWISE_BLOCK) {
            double[] r = new double[UNROLL];
            System.arraycopy(a, from, r, 0, UNROLL);
            int i = UNROLL;
            for (; i < n - (n % UNROLL); i += UNROLL) {
                for (int j = 0; j < UNROLL; j++) r[j] += a[from + i + j];
            }
            double result = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
            for (; i < n; i++) result += a[from + i];
            return result;
        }
        int half = n / 2;
        half -= half % UNROLL;
        return pairwiseSum(a, from, half) + pairwiseSum(a, from + half, n - half);
    }
}

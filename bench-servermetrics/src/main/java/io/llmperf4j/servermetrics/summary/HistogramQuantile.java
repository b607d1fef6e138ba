package io.llmperf4j.servermetrics.summary;

import java.util.Arrays;

/**
 * A quantile from cumulative histogram buckets, computed exactly as Prometheus' {@code histogram_quantile} does
 * ({@code promql/quantile.go}, {@code bucketQuantile}): find the bucket holding rank {@code q · count} and
 * interpolate linearly between its lower and upper bound, assuming observations spread evenly inside it. So the
 * answer can be off by up to a bucket's width: with vLLM's TTFT buckets 0.1 / 0.25 s, a true p50 of 0.11 s may read
 * anywhere in between. A quantile in the {@code +Inf} bucket is the highest finite bound; the first bucket's lower
 * bound is 0 (unless its upper bound is ≤ 0).
 */
public final class HistogramQuantile {

    private HistogramQuantile() {
    }

    /**
     * @param q                 the quantile, 0–1
     * @param upperBounds       the buckets' {@code le} values, ascending, the last {@code +Inf}
     * @param cumulativeCounts  the count of observations ≤ each bound (made monotonic here, as Prometheus does)
     * @return the estimate, or NaN when it is undefined: no observations, fewer than two buckets, or no
     *         {@code +Inf} bucket
     */
    public static double quantile(double q, double[] upperBounds, double[] cumulativeCounts) {
        if (upperBounds.length != cumulativeCounts.length) {
            throw new IllegalArgumentException("bounds (" + upperBounds.length + ") and counts ("
                    + cumulativeCounts.length + ") differ in length");
        }
        if (Double.isNaN(q)) return Double.NaN;
        if (q < 0) return Double.NEGATIVE_INFINITY;
        if (q > 1) return Double.POSITIVE_INFINITY;
        int n = upperBounds.length;
        if (n < 2 || upperBounds[n - 1] != Double.POSITIVE_INFINITY) return Double.NaN;
        double[] counts = Arrays.copyOf(cumulativeCounts, n);
        for (int i = 1; i < n; i++) counts[i] = Math.max(counts[i], counts[i - 1]);
        double observations = counts[n - 1];
        if (observations == 0 || Double.isNaN(observations)) return Double.NaN;
        double rank = q * observations;
        int b = 0;
        while (b < n - 1 && counts[b] < rank) b++;
        if (b == n - 1) return upperBounds[n - 2];
        if (b == 0 && upperBounds[0] <= 0) return upperBounds[0];
        double bucketStart = 0;
        double bucketEnd = upperBounds[b];
        double count = counts[b];
        if (b > 0) {
            bucketStart = upperBounds[b - 1];
            count -= counts[b - 1];
            rank -= counts[b - 1];
        }
        return bucketStart + (bucketEnd - bucketStart) * (rank / count);
    }

    /**
     * The bucket {@link #quantile} interpolates in: {lower, upper}, upper {@code +Inf} for the last bucket; null
     * where the quantile is undefined.
     */
    public static double[] bucket(double q, double[] upperBounds, double[] cumulativeCounts) {
        if (Double.isNaN(quantile(q, upperBounds, cumulativeCounts)) || q < 0 || q > 1) return null;
        int n = upperBounds.length;
        double[] counts = Arrays.copyOf(cumulativeCounts, n);
        for (int i = 1; i < n; i++) counts[i] = Math.max(counts[i], counts[i - 1]);
        double rank = q * counts[n - 1];
        int b = 0;
        while (b < n - 1 && counts[b] < rank) b++;
        double lower = b == 0 ? Math.min(0, upperBounds[0]) : upperBounds[b - 1];
        return new double[] {lower, upperBounds[b]};
    }
}

package io.llmperf4j.servermetrics.summary;

import java.util.List;

/**
 * A server-side latency histogram over the measured window, in seconds: its increase between the scrapes that
 * bracket the window. Quantiles interpolate linearly inside a bucket, as Prometheus' {@code histogram_quantile} does
 * ({@link HistogramQuantile}); the mean is exact ({@code _sum} / {@code _count} increases). Each quantile's bucket is
 * kept beside it: the true value lies anywhere in it, so a server p50 of 50 ms read from a 40-60 ms bucket may well be
 * below a client p50 of 42 ms.
 *
 * @param observations requests the server observed in the window
 * @param meanS        mean, null when nothing was observed
 * @param p50S         median estimate, null when nothing was observed
 * @param p90S         90th percentile estimate
 * @param p99S         99th percentile estimate
 * @param p50Bucket    the bucket the median was interpolated in; null when nothing was observed (or in a summary
 *                     written before it)
 * @param p90Bucket    the same for the 90th percentile
 * @param p99Bucket    the same for the 99th percentile
 * @param upperBoundQuantiles the quantiles ({@code "p50"}, {@code "p90"}, {@code "p99"}) that are Markov's cap
 *                     mean / (1 - q), below the bucket's interpolation: an upper bound, not a measurement (a wide
 *                     first bucket with every wait about 0.1 ms gave a p99 of 10.56 ms); empty when none (or in a
 *                     summary written before it)
 */
public record ServerLatency(long observations, Double meanS, Double p50S, Double p90S, Double p99S,
                            Bucket p50Bucket, Bucket p90Bucket, Bucket p99Bucket, List<String> upperBoundQuantiles) {

    /** Without the quantiles' buckets. */
    public ServerLatency(long observations, Double meanS, Double p50S, Double p90S, Double p99S) {
        this(observations, meanS, p50S, p90S, p99S, null, null, null, List.of());
    }

    /** Without the upper-bound quantiles. */
    public ServerLatency(long observations, Double meanS, Double p50S, Double p90S, Double p99S,
                         Bucket p50Bucket, Bucket p90Bucket, Bucket p99Bucket) {
        this(observations, meanS, p50S, p90S, p99S, p50Bucket, p90Bucket, p99Bucket, List.of());
    }

    public ServerLatency {
        upperBoundQuantiles = upperBoundQuantiles == null ? List.of() : List.copyOf(upperBoundQuantiles);
    }

    /** Whether {@code quantile} ("p99") is an upper bound (Markov's cap), not an interpolation. */
    public boolean isUpperBound(String quantile) {
        return upperBoundQuantiles.contains(quantile);
    }

    /**
     * One histogram bucket, in seconds.
     *
     * @param lowerS its lower bound (the previous bucket's {@code le}; 0 for the first)
     * @param upperS its {@code le}; null for the {@code +Inf} bucket
     */
    public record Bucket(double lowerS, Double upperS) {
    }
}

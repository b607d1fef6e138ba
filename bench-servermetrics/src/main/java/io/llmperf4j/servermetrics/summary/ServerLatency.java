package io.llmperf4j.servermetrics.summary;

/**
 * A server-side latency histogram over the measured window, in seconds: its increase between the scrapes that
 * bracket the window. Quantiles interpolate linearly inside a bucket, as Prometheus' {@code histogram_quantile} does
 * ({@link HistogramQuantile}); the mean is exact ({@code _sum} / {@code _count} increases).
 *
 * @param observations requests the server observed in the window
 * @param meanS        mean, null when nothing was observed
 * @param p50S         median estimate, null when nothing was observed
 * @param p90S         90th percentile estimate
 * @param p99S         99th percentile estimate
 */
public record ServerLatency(long observations, Double meanS, Double p50S, Double p90S, Double p99S) {
}

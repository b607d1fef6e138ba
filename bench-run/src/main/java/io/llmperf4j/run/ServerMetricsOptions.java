package io.llmperf4j.run;

import java.net.URI;
import java.time.Duration;

/**
 * Whether and how a run scrapes the server's Prometheus metrics (issue 19).
 *
 * @param enabled  false for --no-server-metrics
 * @param url      --server-metrics URL, or null for the endpoint's origin + {@code /metrics}
 * @param interval --server-metrics-interval
 */
public record ServerMetricsOptions(boolean enabled, URI url, Duration interval) {

    /** The default: scrape the endpoint's origin + {@code /metrics} every second, when it serves Prometheus text. */
    public static final ServerMetricsOptions DEFAULT = new ServerMetricsOptions(true, null, Duration.ofSeconds(1));
    /** --no-server-metrics. */
    public static final ServerMetricsOptions OFF = new ServerMetricsOptions(false, null, Duration.ofSeconds(1));

    public ServerMetricsOptions {
        interval = interval == null ? Duration.ofSeconds(1) : interval;
        if (interval.isNegative() || interval.isZero()) {
            throw new InvalidRequestException("--server-metrics-interval must be positive, got "
                    + interval.toMillis() / 1000.0 + " s");
        }
        if (url != null && (url.getScheme() == null || !url.getScheme().matches("(?i)https?")
                || url.getHost() == null)) {
            throw new InvalidRequestException("--server-metrics must be an http(s) URL, got " + url);
        }
    }
}

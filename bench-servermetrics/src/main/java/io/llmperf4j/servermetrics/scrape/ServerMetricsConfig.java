package io.llmperf4j.servermetrics.scrape;

import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import javax.net.ssl.SSLContext;

/**
 * What to scrape and how often.
 *
 * @param metricsUrl   the metrics URL, http or https
 * @param interval     time between scrape starts ({@value #DEFAULT_INTERVAL_MILLIS} ms by default); a scrape that
 *                     takes longer delays the next one, they never overlap
 * @param timeout      the whole scrape, connect to last byte ({@value #DEFAULT_TIMEOUT_MILLIS} ms by default): a
 *                     server busy with the benchmark may answer /metrics slowly, and a late answer is still a
 *                     point on the timeline
 * @param endpoint     the model API's URL, whose origin decides whether the key is sent; null when unknown
 * @param apiKey       the model API's key, sent as {@code Authorization: Bearer} only to the endpoint's origin; null
 *                     for none. Never printed: {@link #toString()} hides it
 * @param maxBodyBytes a body larger than this is a failed scrape ({@value #DEFAULT_MAX_BODY_BYTES} by default)
 * @param sslContext   TLS trust for an https metrics URL, null for the JDK's default (verified); give the run's own
 *                     trust here ({@link TlsContexts#trusting}, {@link TlsContexts#trustingAnything}) so
 *                     {@code --ca-cert} and {@code --insecure} apply to the scrape as to the requests
 */
public record ServerMetricsConfig(URI metricsUrl, Duration interval, Duration timeout, URI endpoint, String apiKey,
                                  int maxBodyBytes, SSLContext sslContext) {

    public static final long DEFAULT_INTERVAL_MILLIS = 1000;
    public static final long DEFAULT_TIMEOUT_MILLIS = 5000;
    public static final int DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

    public ServerMetricsConfig {
        Objects.requireNonNull(metricsUrl, "metricsUrl");
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(timeout, "timeout");
        String scheme = metricsUrl.getScheme() == null ? "" : metricsUrl.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || metricsUrl.getHost() == null) {
            throw new IllegalArgumentException("metrics URL (" + Origins.display(metricsUrl)
                    + ") must be an http or https URL with a host");
        }
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("interval (" + interval.toMillis() + " ms) must be > 0");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout (" + timeout.toMillis() + " ms) must be > 0");
        }
        if (maxBodyBytes < 1) throw new IllegalArgumentException("maxBodyBytes (" + maxBodyBytes + ") must be >= 1");
    }

    /** The defaults for an endpoint: its origin's {@code /metrics}, every 1 s, 5 s timeout. */
    public static ServerMetricsConfig forEndpoint(URI endpoint, String apiKey) {
        return new ServerMetricsConfig(Origins.defaultMetricsUrl(endpoint), Duration.ofMillis(DEFAULT_INTERVAL_MILLIS),
                Duration.ofMillis(DEFAULT_TIMEOUT_MILLIS), endpoint, apiKey, DEFAULT_MAX_BODY_BYTES, null);
    }

    public ServerMetricsConfig withMetricsUrl(URI url) {
        return new ServerMetricsConfig(url, interval, timeout, endpoint, apiKey, maxBodyBytes, sslContext);
    }

    public ServerMetricsConfig withInterval(Duration newInterval) {
        return new ServerMetricsConfig(metricsUrl, newInterval, timeout, endpoint, apiKey, maxBodyBytes, sslContext);
    }

    public ServerMetricsConfig withTimeout(Duration newTimeout) {
        return new ServerMetricsConfig(metricsUrl, interval, newTimeout, endpoint, apiKey, maxBodyBytes, sslContext);
    }

    public ServerMetricsConfig withSslContext(SSLContext context) {
        return new ServerMetricsConfig(metricsUrl, interval, timeout, endpoint, apiKey, maxBodyBytes, context);
    }

    /** True when the key goes with the scrape: there is one and the metrics URL has the endpoint's origin. */
    public boolean sendsApiKey() {
        return sendsApiKeyTo(metricsUrl);
    }

    /** True when the key goes with a request to {@code url} (the metrics URL, or where it redirects). */
    public boolean sendsApiKeyTo(URI url) {
        return apiKey != null && !apiKey.isEmpty() && Origins.sameOrigin(url, endpoint);
    }

    @Override
    public String toString() {
        return "ServerMetricsConfig[metricsUrl=" + Origins.display(metricsUrl) + ", interval=" + interval
                + ", timeout=" + timeout + ", endpoint=" + (endpoint == null ? null : Origins.display(endpoint))
                + ", apiKey=" + (apiKey == null ? "none" : "(hidden)") + ", maxBodyBytes=" + maxBodyBytes
                + ", tls=" + (sslContext == null ? "default" : "custom") + "]";
    }
}

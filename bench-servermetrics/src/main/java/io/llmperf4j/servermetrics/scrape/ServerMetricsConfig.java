package io.llmperf4j.servermetrics.scrape;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
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
 * @param endpoint     the model API's URL, whose origin decides whether {@code endpointHeaders} are sent; null when
 *                     unknown
 * @param endpointHeaders the run's credentials as its requests carry them: the key in the API's header
 *                     ({@code Authorization: Bearer}, {@code x-api-key}) and the {@code --header} values. Sent only to
 *                     the endpoint's origin (scheme, host and port): a gateway that guards the API guards its
 *                     {@code /metrics} with the same credentials, and another origin must not receive them. Never
 *                     printed: {@link #toString()} names none
 * @param metricsHeaders headers the user gave for the scrape itself ({@code --server-metrics-header}): sent to the
 *                     metrics URL's origin, whatever it is, in place of an endpoint header of the same name; not to
 *                     another origin it redirects to. Never printed
 * @param maxBodyBytes a body larger than this is a failed scrape ({@value #DEFAULT_MAX_BODY_BYTES} by default)
 * @param sslContext   TLS trust for an https metrics URL, null for the JDK's default (verified); give the run's own
 *                     trust here ({@link TlsContexts#trusting}, {@link TlsContexts#trustingAnything}) so
 *                     {@code --ca-cert} and {@code --insecure} apply to the scrape as to the requests
 */
public record ServerMetricsConfig(URI metricsUrl, Duration interval, Duration timeout, URI endpoint,
                                  Map<String, String> endpointHeaders, Map<String, String> metricsHeaders,
                                  int maxBodyBytes, SSLContext sslContext) {

    public static final long DEFAULT_INTERVAL_MILLIS = 1000;
    public static final long DEFAULT_TIMEOUT_MILLIS = 5000;
    public static final int DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

    public ServerMetricsConfig {
        Objects.requireNonNull(metricsUrl, "metricsUrl");
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(timeout, "timeout");
        endpointHeaders = endpointHeaders == null ? Map.of() : Map.copyOf(endpointHeaders);
        metricsHeaders = metricsHeaders == null ? Map.of() : Map.copyOf(metricsHeaders);
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

    /**
     * The defaults for an endpoint: its origin's {@code /metrics}, every 1 s, 5 s timeout, the key (if any) as
     * {@code Authorization: Bearer}, as OpenAI-style APIs take it.
     */
    public static ServerMetricsConfig forEndpoint(URI endpoint, String apiKey) {
        return new ServerMetricsConfig(Origins.defaultMetricsUrl(endpoint), Duration.ofMillis(DEFAULT_INTERVAL_MILLIS),
                Duration.ofMillis(DEFAULT_TIMEOUT_MILLIS), endpoint,
                apiKey == null || apiKey.isEmpty() ? Map.of() : Map.of("Authorization", "Bearer " + apiKey),
                Map.of(), DEFAULT_MAX_BODY_BYTES, null);
    }

    public ServerMetricsConfig withMetricsUrl(URI url) {
        return new ServerMetricsConfig(url, interval, timeout, endpoint, endpointHeaders, metricsHeaders,
                maxBodyBytes, sslContext);
    }

    public ServerMetricsConfig withInterval(Duration newInterval) {
        return new ServerMetricsConfig(metricsUrl, newInterval, timeout, endpoint, endpointHeaders, metricsHeaders,
                maxBodyBytes, sslContext);
    }

    public ServerMetricsConfig withTimeout(Duration newTimeout) {
        return new ServerMetricsConfig(metricsUrl, interval, newTimeout, endpoint, endpointHeaders, metricsHeaders,
                maxBodyBytes, sslContext);
    }

    public ServerMetricsConfig withSslContext(SSLContext context) {
        return new ServerMetricsConfig(metricsUrl, interval, timeout, endpoint, endpointHeaders, metricsHeaders,
                maxBodyBytes, context);
    }

    /** The same with the run's credentials as its requests carry them (the key's header and --header values). */
    public ServerMetricsConfig withEndpointHeaders(Map<String, String> headers) {
        return new ServerMetricsConfig(metricsUrl, interval, timeout, endpoint, headers, metricsHeaders,
                maxBodyBytes, sslContext);
    }

    /** The same with headers for the scrape itself (--server-metrics-header). */
    public ServerMetricsConfig withMetricsHeaders(Map<String, String> headers) {
        return new ServerMetricsConfig(metricsUrl, interval, timeout, endpoint, endpointHeaders, headers,
                maxBodyBytes, sslContext);
    }

    /** True when the scrape of the metrics URL carries any header beside the scrape's own (a credential, say). */
    public boolean sendsCredentials() {
        return !headersFor(metricsUrl).isEmpty();
    }

    /**
     * The headers a request to {@code url} (the metrics URL, or where it redirects) carries beside the scrape's own:
     * the run's credentials when {@code url} has the endpoint's origin, then the scrape's own headers when it has
     * the metrics URL's, each replacing an earlier one of the same name (names compare case-insensitively).
     */
    public Map<String, String> headersFor(URI url) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (Origins.sameOrigin(url, endpoint)) headers.putAll(endpointHeaders);
        if (Origins.sameOrigin(url, metricsUrl)) {
            metricsHeaders.forEach((name, value) -> {
                headers.keySet().removeIf(name::equalsIgnoreCase);
                headers.put(name, value);
            });
        }
        return headers;
    }

    @Override
    public String toString() {
        return "ServerMetricsConfig[metricsUrl=" + Origins.display(metricsUrl) + ", interval=" + interval
                + ", timeout=" + timeout + ", endpoint=" + (endpoint == null ? null : Origins.display(endpoint))
                + ", endpointHeaders=" + hidden(endpointHeaders) + ", metricsHeaders=" + hidden(metricsHeaders)
                + ", maxBodyBytes=" + maxBodyBytes + ", tls=" + (sslContext == null ? "default" : "custom") + "]";
    }

    /** "none" or "2 (hidden)": a header's value may be a key, and even its name says nothing a log needs. */
    private static String hidden(Map<String, String> headers) {
        return headers.isEmpty() ? "none" : headers.size() + " (hidden)";
    }
}

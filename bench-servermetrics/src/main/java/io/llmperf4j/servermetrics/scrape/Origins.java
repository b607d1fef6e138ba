package io.llmperf4j.servermetrics.scrape;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/** URL helpers: origins, the default metrics URL, and URLs safe to print. */
public final class Origins {

    /** Path of the metrics endpoint every engine serves by default. */
    public static final String DEFAULT_METRICS_PATH = "/metrics";

    private Origins() {
    }

    /**
     * The endpoint's origin plus {@code /metrics}: {@code https://host:8443/v1} → {@code https://host:8443/metrics}.
     * vLLM, SGLang and TGI serve metrics on the API port at this path.
     */
    public static URI defaultMetricsUrl(URI endpoint) {
        try {
            return new URI(endpoint.getScheme(), null, endpoint.getHost(), endpoint.getPort(), DEFAULT_METRICS_PATH,
                    null, null);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("cannot derive a metrics URL from " + display(endpoint), e);
        }
    }

    /**
     * True when both URLs have the same scheme, host and port (RFC 6454 origin); a missing port is the scheme's
     * default (80, 443), and scheme and host compare case-insensitively.
     */
    public static boolean sameOrigin(URI a, URI b) {
        if (a == null || b == null || a.getScheme() == null || b.getScheme() == null || a.getHost() == null
                || b.getHost() == null) {
            return false;
        }
        return a.getScheme().equalsIgnoreCase(b.getScheme())
                && a.getHost().equalsIgnoreCase(b.getHost())
                && port(a) == port(b);
    }

    /** The URL's origin, {@code https://host:8443}, fit for messages (no user info, path or query). */
    public static String origin(URI url) {
        if (url == null) return "null";
        if (url.getHost() == null) return "(invalid URL)";
        try {
            return new URI(url.getScheme(), null, url.getHost(), url.getPort(), null, null, null).toString();
        } catch (URISyntaxException e) {
            return url.getScheme() + "://" + url.getHost();
        }
    }

    /** The URL without user info, query or fragment, fit for messages and output files. */
    public static String display(URI url) {
        if (url == null) return "null";
        if (url.getHost() == null) return "(invalid URL)";
        try {
            return new URI(url.getScheme(), null, url.getHost(), url.getPort(), url.getPath(), null, null).toString();
        } catch (URISyntaxException e) {
            return url.getScheme() + "://" + url.getHost();
        }
    }

    private static int port(URI u) {
        if (u.getPort() >= 0) return u.getPort();
        return switch (u.getScheme().toLowerCase(Locale.ROOT)) {
            case "http" -> 80;
            case "https" -> 443;
            default -> -1;
        };
    }
}

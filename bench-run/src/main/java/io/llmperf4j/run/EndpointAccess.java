package io.llmperf4j.run;

import io.llmperf4j.servermetrics.scrape.TlsContexts;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * How a run (and doctor, and the server-metrics scrape) reaches an endpoint beside its key: the CAs to trust (or any
 * certificate), and the extra headers.
 *
 * @param caCert   PEM file of CA certificates to trust, or null for the JDK's default trust
 * @param insecure trust any certificate and host name
 * @param headers  extra request headers, sent after the API's own (a run's --header); the scrape sends them, with
 *                 the key, only to the endpoint's origin
 * @param scrapeHeaders headers for the server-metrics scrape alone (--server-metrics-header), sent to the metrics
 *                 URL whatever its origin
 */
public record EndpointAccess(Path caCert, boolean insecure, Map<String, String> headers,
                             Map<String, String> scrapeHeaders) {
    /** The JDK's default trust, no extra header. */
    public static final EndpointAccess DEFAULT = new EndpointAccess(null, false, Map.of(), Map.of());

    public EndpointAccess {
        headers = Map.copyOf(headers);
        scrapeHeaders = scrapeHeaders == null ? Map.of() : Map.copyOf(scrapeHeaders);
    }

    /** The TLS context for Java's HTTP client (doctor's checks, the scrape), or null for the JDK's default. */
    SSLContext sslContext() throws IOException {
        if (insecure) return TlsContexts.trustingAnything();
        return caCert == null ? null : TlsContexts.trusting(caCert);
    }
}

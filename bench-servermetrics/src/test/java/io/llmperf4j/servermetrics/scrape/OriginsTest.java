package io.llmperf4j.servermetrics.scrape;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OriginsTest {

    @Test
    void defaultMetricsUrlIsTheEndpointsOriginPlusMetrics() {
        assertEquals(URI.create("https://api.example.com:8443/metrics"),
                Origins.defaultMetricsUrl(URI.create("https://api.example.com:8443/v1/chat/completions?x=1")));
        assertEquals(URI.create("http://127.0.0.1:8000/metrics"),
                Origins.defaultMetricsUrl(URI.create("http://127.0.0.1:8000/v1")));
        assertEquals(URI.create("http://h/metrics"), Origins.defaultMetricsUrl(URI.create("http://user:pw@h/v1")));
    }

    @Test
    void originIsSchemeHostAndPortWithDefaultPorts() {
        assertTrue(Origins.sameOrigin(URI.create("http://h:8000/v1"), URI.create("http://h:8000/metrics")));
        assertTrue(Origins.sameOrigin(URI.create("https://H/v1"), URI.create("HTTPS://h:443/metrics")));
        assertTrue(Origins.sameOrigin(URI.create("http://h/v1"), URI.create("http://h:80/metrics")));
        assertFalse(Origins.sameOrigin(URI.create("http://h:8000/v1"), URI.create("http://h:9000/metrics")));
        assertFalse(Origins.sameOrigin(URI.create("http://h:8000/v1"), URI.create("https://h:8000/metrics")));
        assertFalse(Origins.sameOrigin(URI.create("http://h/v1"), URI.create("http://other/metrics")));
        assertFalse(Origins.sameOrigin(URI.create("http://127.0.0.1:8000/v1"), URI.create("http://localhost:8000/metrics")));
        assertFalse(Origins.sameOrigin(URI.create("http://h/v1"), null));
    }

    @Test
    void keyIsSentOnlyToTheEndpointsOrigin() {
        ServerMetricsConfig same = ServerMetricsConfig.forEndpoint(URI.create("https://api.example.com/v1"), "sk-1");
        assertTrue(same.sendsCredentials());
        assertEquals(Map.of("Authorization", "Bearer sk-1"), same.headersFor(same.metricsUrl()));
        assertFalse(same.withMetricsUrl(URI.create("http://api.example.com/metrics")).sendsCredentials());
        assertFalse(same.withMetricsUrl(URI.create("https://metrics.example.com/metrics")).sendsCredentials());
        assertFalse(ServerMetricsConfig.forEndpoint(URI.create("https://api.example.com/v1"), null).sendsCredentials());
        assertFalse(ServerMetricsConfig.forEndpoint(URI.create("https://api.example.com/v1"), "").sendsCredentials());
    }

    @Test
    void theRunsHeadersGoToTheEndpointsOriginTheScrapesOwnToTheMetricsUrls() {
        ServerMetricsConfig c = ServerMetricsConfig.forEndpoint(URI.create("https://api.example.com/v1"), null)
                .withEndpointHeaders(Map.of("x-api-key", "sk-1", "X-Gateway", "g"))
                .withMetricsHeaders(Map.of("X-GATEWAY", "metrics-token"));
        URI same = c.metricsUrl();
        assertEquals(Map.of("x-api-key", "sk-1", "X-GATEWAY", "metrics-token"), c.headersFor(same),
                "the scrape's own replaces the run's of the same name, whatever its case");
        ServerMetricsConfig other = c.withMetricsUrl(URI.create("https://metrics.example.com:9090/metrics"));
        assertEquals(Map.of("X-GATEWAY", "metrics-token"), other.headersFor(other.metricsUrl()),
                "another origin: only the headers given for the scrape");
        assertEquals(Map.of(), other.headersFor(URI.create("https://elsewhere.example.com/metrics")),
                "a redirect to a third origin: nothing");
        assertFalse(c.toString().contains("sk-1") || c.toString().contains("metrics-token")
                || c.toString().contains("X-Gateway"), c.toString());
    }

    @Test
    void configNeverPrintsTheKeyOrUserInfo() {
        ServerMetricsConfig c = ServerMetricsConfig.forEndpoint(URI.create("https://u:secret-pw@h/v1"), "sk-secret");
        assertFalse(c.toString().contains("sk-secret"), c.toString());
        assertFalse(c.toString().contains("secret-pw"), c.toString());
        assertEquals("https://h/metrics", Origins.display(c.metricsUrl()));
    }

    @Test
    void badSettingsNameTheValueAndTheRule() {
        ServerMetricsConfig c = ServerMetricsConfig.forEndpoint(URI.create("http://h/v1"), null);
        assertEquals("interval (0 ms) must be > 0",
                assertThrows(IllegalArgumentException.class, () -> c.withInterval(Duration.ZERO)).getMessage());
        assertEquals("metrics URL (ftp://h/metrics) must be an http or https URL with a host",
                assertThrows(IllegalArgumentException.class,
                        () -> c.withMetricsUrl(URI.create("ftp://h/metrics"))).getMessage());
    }
}

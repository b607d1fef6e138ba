package io.llmperf4j.servermetrics.scrape;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
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
        assertTrue(same.sendsApiKey());
        assertFalse(same.withMetricsUrl(URI.create("http://api.example.com/metrics")).sendsApiKey());
        assertFalse(same.withMetricsUrl(URI.create("https://metrics.example.com/metrics")).sendsApiKey());
        assertFalse(ServerMetricsConfig.forEndpoint(URI.create("https://api.example.com/v1"), null).sendsApiKey());
        assertFalse(ServerMetricsConfig.forEndpoint(URI.create("https://api.example.com/v1"), "").sendsApiKey());
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

package io.llmperf4j.servermetrics.scrape;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.servermetrics.Fixtures;
import io.llmperf4j.servermetrics.engines.ServerEngine;
import io.llmperf4j.servermetrics.exposition.ExpositionFormat;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class MetricsProbeTest {

    @Test
    void vllmOpenMetricsIsRecognised() throws Exception {
        try (TestMetricsServer server = new TestMetricsServer()) {
            server.contentType = ExpositionFormat.OPENMETRICS_1_0.contentType;
            server.body = Fixtures.exposition("vllm-openmetrics.txt");
            ProbeResult r = MetricsProbe.probe(ServerMetricsConfig.forEndpoint(server.url("/v1"), "sk-x"));
            assertTrue(r.ok(), r.detail());
            assertEquals(ServerEngine.VLLM, r.engine());
            assertEquals(ExpositionFormat.OPENMETRICS_1_0, r.format());
            assertTrue(r.sentCredentials());
            assertEquals(server.url("/metrics").toString(), r.url());
            assertTrue(r.detail().startsWith("serves OpenMetrics: "), r.detail());
            assertTrue(r.detail().endsWith(", vllm names"), r.detail());
        }
    }

    /**
     * The check's time is what it waited for the server, connect to the answer's last byte, within its timeout (not
     * the parse of 200,000 samples after it); no answer, no time.
     */
    @Test
    void theCheckSaysHowLongItWaitedWithinItsTimeout() throws Exception {
        try (TestMetricsServer server = new TestMetricsServer()) {
            StringBuilder big = new StringBuilder("# TYPE x_total counter\n");
            for (int i = 0; i < 200_000; i++) big.append("x_total{k=\"v").append(i).append("\"} 1\n");
            server.body = big.toString();
            ServerMetricsConfig config = ServerMetricsConfig.forEndpoint(server.url("/v1"), null)
                    .withTimeout(Duration.ofSeconds(2));
            ProbeResult r = MetricsProbe.probe(config);
            assertTrue(r.ok(), r.detail());
            assertEquals(200_000, r.samples());
            assertTrue(!r.waited().isNegative() && r.waited().compareTo(config.timeout()) <= 0, r.waited()::toString);
            server.status = 404;
            assertNull(MetricsProbe.probe(config).waited());
        }
    }

    @Test
    void notFoundAndUnreachableAreAnswersNotExceptions() throws Exception {
        try (TestMetricsServer server = new TestMetricsServer()) {
            server.status = 404;
            ProbeResult r = MetricsProbe.probe(ServerMetricsConfig.forEndpoint(server.url("/v1"), null));
            assertFalse(r.ok());
            assertEquals(404, r.httpStatus());
            assertEquals("HTTP 404", r.detail());
        }
        URI closed;
        try (TestMetricsServer gone = new TestMetricsServer()) {
            closed = gone.url("/v1");
        }
        ProbeResult r = MetricsProbe.probe(ServerMetricsConfig.forEndpoint(closed, null));
        assertFalse(r.ok());
        assertNull(r.httpStatus());
        assertEquals("connection refused or unreachable", r.detail());
    }
}

package io.llmperf4j.servermetrics.scrape;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.servermetrics.Fixtures;
import io.llmperf4j.servermetrics.engines.ServerEngine;
import io.llmperf4j.servermetrics.exposition.ExpositionFormat;
import java.net.URI;
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

package io.llmperf4j.servermetrics.scrape;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What a scrape's failure quotes of the server's text, against a real server on 127.0.0.1 (QA r3): control
 * characters escaped and long lines cut, so the console line stays text.
 */
class ScrapedTextQuotingTest {

    private static final Duration TIMEOUT = Duration.ofMillis(400);

    @Test
    void binaryGarbageIsQuotedEscapedAndCut() throws Exception {
        try (TestMetricsServer server = new TestMetricsServer()) {
            // gtserver's METRICS=garbage: NUL and SOH inside the first line, and an ANSI escape that would recolour
            server.body = "<html>\u0000\u0001 vllm:num_requests_running{ oops = 3\u001b[31m\nfoo bar baz\n";
            ProbeResult probe = MetricsProbe.probe(ServerMetricsConfig.forEndpoint(server.url("/v1"), null)
                    .withMetricsUrl(server.url("/metrics")).withTimeout(TIMEOUT));
            assertFalse(probe.ok());
            assertEquals("malformed metrics text, line 1: expected a metric name: "
                    + "<html>\\x00\\x01 vllm:num_requests_running{ oops = 3\\x1b[31m", probe.detail());

            server.body = "<" + "x".repeat(300) + "\n";
            String cut = MetricsProbe.probe(ServerMetricsConfig.forEndpoint(server.url("/v1"), null)
                    .withMetricsUrl(server.url("/metrics")).withTimeout(TIMEOUT)).detail();
            assertEquals("malformed metrics text, line 1: expected a metric name: <" + "x".repeat(119) + "…", cut);
        }
    }

    @Test
    void aContentTypeWithControlCharactersIsQuotedEscaped() throws Exception {
        try (TestMetricsServer server = new TestMetricsServer()) {
            server.contentType = "text/html; x=\u007f\u0085";
            server.body = "<html></html>";
            ProbeResult probe = MetricsProbe.probe(ServerMetricsConfig.forEndpoint(server.url("/v1"), null)
                    .withMetricsUrl(server.url("/metrics")).withTimeout(TIMEOUT));
            assertEquals("not Prometheus text (Content-Type text/html; x=\\x7f\\x85)", probe.detail());
        }
    }
}

package io.llmperf4j.servermetrics.vllm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.servermetrics.engines.ServerEngine;
import io.llmperf4j.servermetrics.exposition.Exposition;
import io.llmperf4j.servermetrics.exposition.ExpositionFormat;
import io.llmperf4j.servermetrics.exposition.ExpositionParser;
import io.llmperf4j.servermetrics.exposition.Labels;
import io.llmperf4j.servermetrics.exposition.MetricType;
import io.llmperf4j.servermetrics.exposition.Sample;
import io.llmperf4j.servermetrics.scrape.MetricsProbe;
import io.llmperf4j.servermetrics.scrape.ProbeResult;
import io.llmperf4j.servermetrics.scrape.ServerMetricsConfig;
import io.llmperf4j.servermetrics.scrape.ServerMetricsScraper;
import io.llmperf4j.servermetrics.summary.ServerSideSummarizer;
import io.llmperf4j.servermetrics.summary.ServerSideSummary;
import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class VllmMetricsExpositionTest {

    private static final Labels M = Labels.of("engine", "0", "model_name", "sim-model");

    private static double value(Exposition e, String name, Labels labels) {
        return e.samples().stream().filter(s -> s.name().equals(name) && s.labels().equals(labels))
                .findFirst().orElseThrow(() -> new AssertionError("no " + name + labels)).value();
    }

    @Test
    void rendersVllmNamesThatTheStrictParserReadsBack() {
        VllmMetricsExposition exposition = new VllmMetricsExposition("sim-model", 1.7645e9);
        VllmMetricsExposition.Model m = exposition.model("sim-model");
        m.addRequestsRunning(3);
        m.addRequestsWaiting(2);
        m.addRequestsWaiting(-1);
        exposition.setKvCacheUsage(0.25);
        m.addPromptTokens(1200);
        m.addGenerationTokens(345);
        m.addPrefixCacheLookup(1000, 640);
        m.addRequestFinished("stop");
        m.addRequestFinished("length");
        m.addRequestFinished("stop");
        m.observeTimeToFirstTokenSeconds(0.05);
        m.observeTimeToFirstTokenSeconds(0.1);
        m.observeTimeToFirstTokenSeconds(3000);
        m.observeE2eRequestLatencySeconds(1.2);

        Exposition e = ExpositionParser.parse(exposition.render(), ExpositionFormat.PROMETHEUS_TEXT_0_0_4);
        assertEquals(3.0, value(e, "vllm:num_requests_running", M));
        assertEquals(1.0, value(e, "vllm:num_requests_waiting", M));
        assertEquals(0.25, value(e, "vllm:kv_cache_usage_perc", M));
        assertEquals(1200.0, value(e, "vllm:prompt_tokens_total", M));
        assertEquals(345.0, value(e, "vllm:generation_tokens_total", M));
        assertEquals(1000.0, value(e, "vllm:prefix_cache_queries_total", M));
        assertEquals(640.0, value(e, "vllm:prefix_cache_hits_total", M));
        assertEquals(2.0, value(e, "vllm:request_success_total", M.with("finished_reason", "stop")));
        assertEquals(1.0, value(e, "vllm:request_success_total", M.with("finished_reason", "length")));
        assertEquals(0.0, value(e, "vllm:request_success_total", M.with("finished_reason", "abort")));
        assertEquals(MetricType.HISTOGRAM, e.family("vllm:time_to_first_token_seconds").type());
        assertEquals(0.0, value(e, "vllm:time_to_first_token_seconds_bucket", M.with("le", "0.04")));
        assertEquals(1.0, value(e, "vllm:time_to_first_token_seconds_bucket", M.with("le", "0.06")));
        assertEquals(2.0, value(e, "vllm:time_to_first_token_seconds_bucket", M.with("le", "0.1")),
                "le is inclusive: 0.1 lands in le=0.1");
        assertEquals(2.0, value(e, "vllm:time_to_first_token_seconds_bucket", M.with("le", "2560.0")));
        assertEquals(3.0, value(e, "vllm:time_to_first_token_seconds_bucket", M.with("le", "+Inf")));
        assertEquals(3.0, value(e, "vllm:time_to_first_token_seconds_count", M));
        assertEquals(3000.15, value(e, "vllm:time_to_first_token_seconds_sum", M), 1e-9);
        assertEquals(1.7645e9, value(e, "vllm:generation_tokens_created", M));
        assertEquals(ServerEngine.VLLM, ServerEngine.detect(e.samples().stream().map(Sample::name)
                .collect(Collectors.toSet())));
        assertTrue(e.withoutCreated().samples().stream().noneMatch(s -> s.name().endsWith("_created")));
    }

    @Test
    void badObservationsAreRejectedWithTheValue() {
        VllmMetricsExposition exposition = new VllmMetricsExposition("x");
        VllmMetricsExposition.Model m = exposition.model("x");
        assertEquals("KV-cache usage (42.0) must be within 0..1",
                assertThrows(IllegalArgumentException.class, () -> exposition.setKvCacheUsage(42)).getMessage());
        assertEquals("observation (-1.0) must be >= 0",
                assertThrows(IllegalArgumentException.class, () -> m.observeE2eRequestLatencySeconds(-1)).getMessage());
        assertEquals("prefix-cache hits (5) exceed the queried tokens (4)",
                assertThrows(IllegalArgumentException.class, () -> m.addPrefixCacheLookup(4, 5)).getMessage());
    }

    /** Served over HTTP, scraped, summarised: the summary gives back the true values. */
    @Test
    void endToEndTheSummaryGivesBackTheTrueValues() throws Exception {
        VllmMetricsExposition exposition = new VllmMetricsExposition("sim-model");
        VllmMetricsExposition.Model m = exposition.model("sim-model");
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/metrics", exchange -> {
            byte[] body = exposition.render().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", VllmMetricsExposition.CONTENT_TYPE);
            exchange.sendResponseHeaders(200, body.length);
            try (exchange) {
                exchange.getResponseBody().write(body);
            }
        });
        server.start();
        try {
            URI endpoint = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1");
            ProbeResult probe = MetricsProbe.probe(ServerMetricsConfig.forEndpoint(endpoint, null));
            assertTrue(probe.ok(), probe.detail());
            assertEquals(ServerEngine.VLLM, probe.engine());

            m.addGenerationTokens(777);
            m.addPrefixCacheLookup(50, 50);
            m.observeTimeToFirstTokenSeconds(9);
            ServerMetricsConfig config = ServerMetricsConfig.forEndpoint(endpoint, null)
                    .withInterval(Duration.ofMillis(20));
            long runStart = System.nanoTime();
            ServerMetricsScraper scraper = ServerMetricsScraper.start(config, runStart, null);
            long windowStart = await(scraper, 1).scrapes().get(0).offsetNanos();
            for (int i = 0; i < 100; i++) {
                m.addRequestsRunning(1);
                m.observeTimeToFirstTokenSeconds(0.05);
                m.addGenerationTokens(50);
                m.addPrefixCacheLookup(1000, 250);
                m.observeE2eRequestLatencySeconds(1.2);
                m.addRequestFinished("stop");
            }
            exposition.setKvCacheUsage(0.75);
            // a scrape that surely began after the loop, so it saw all 100 running
            await(scraper, scraper.snapshot().successfulScrapes().size() + 2);
            m.addRequestsRunning(-100);
            exposition.setKvCacheUsage(0.0);
            ServerMetricsTimeline timeline = scraper.stop();
            long windowEnd = timeline.scrapes().get(timeline.scrapes().size() - 1).offsetNanos();

            ServerSideSummary s = ServerSideSummarizer.summarize(timeline, windowStart, windowEnd);
            assertEquals("vllm", s.engine());
            assertEquals(5000L, s.generationTokens(), "777 before the window are not counted");
            assertEquals(0.25, s.prefixCacheHitRate());
            assertEquals(100L, s.requestsFinished());
            assertEquals(100.0, s.peakRequestsRunning());
            assertEquals(0.75, s.peakKvCacheUsage());
            assertEquals(100, s.ttft().observations());
            assertEquals(0.05, s.ttft().meanS(), 1e-9);
            assertEquals(0.05, s.ttft().p50S(), 1e-9, "all in (0.04, 0.06]: rank 50 of 100 is its middle");
            assertEquals(0.04 + 0.02 * 0.99, s.ttft().p99S(), 1e-9);
            assertEquals(1.2, s.e2eRequestLatency().meanS(), 1e-9);
            assertEquals(1.0 + 0.5 * 0.5, s.e2eRequestLatency().p50S(), 1e-9, "all in (1.0, 1.5]");
            assertEquals(0, s.queueTime().observations());
            assertEquals(s.generationTokens() / s.windowS(), s.generationTokensPerS(), 1e-6);
        } finally {
            server.stop(0);
        }
    }

    private static ServerMetricsTimeline await(ServerMetricsScraper scraper, int successes) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            ServerMetricsTimeline t = scraper.snapshot();
            if (t.successfulScrapes().size() >= successes) return t;
            Thread.sleep(5);
        }
        throw new AssertionError("no " + successes + " scrapes: " + scraper.snapshot().warnings());
    }
}

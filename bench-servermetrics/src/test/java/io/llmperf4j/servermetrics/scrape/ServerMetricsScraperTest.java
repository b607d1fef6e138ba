package io.llmperf4j.servermetrics.scrape;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.servermetrics.Fixtures;
import io.llmperf4j.servermetrics.timeline.Scrape;
import io.llmperf4j.servermetrics.timeline.Series;
import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class ServerMetricsScraperTest {

    private static final Duration FAST = Duration.ofMillis(20);

    private static ServerMetricsConfig config(URI endpoint, URI metrics, String key) {
        return ServerMetricsConfig.forEndpoint(endpoint, key).withMetricsUrl(metrics).withInterval(FAST);
    }

    /** Polls until the timeline satisfies {@code done}; the deadline only guards against a hang. */
    private static ServerMetricsTimeline awaitTimeline(ServerMetricsScraper scraper,
                                                       Predicate<ServerMetricsTimeline> done) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            ServerMetricsTimeline t = scraper.snapshot();
            if (done.test(t)) return t;
            Thread.sleep(5);
        }
        throw new AssertionError("timeline never got there: " + scraper.snapshot().scrapes().size() + " scrapes");
    }

    @Test
    void scrapesEveryIntervalStampedFromTheRunStartAndOnceMoreOnStop() throws Exception {
        try (TestMetricsServer server = new TestMetricsServer()) {
            server.body = "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 1\n";
            long runStart = System.nanoTime();
            ServerMetricsScraper scraper = ServerMetricsScraper.start(
                    config(server.url("/v1"), server.url("/metrics"), null), runStart, null);
            awaitTimeline(scraper, t -> t.scrapes().size() >= 3);
            server.body = "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 7\n";
            int before = scraper.snapshot().scrapes().size();
            long stopCalled = System.nanoTime() - runStart;
            ServerMetricsTimeline t = scraper.stop();

            assertTrue(t.scrapes().size() > before, "stop() takes a final scrape");
            assertTrue(t.scrapes().stream().allMatch(Scrape::ok));
            Series running = t.seriesNamed("vllm:num_requests_running").get(0);
            Scrape last = t.scrapes().get(t.scrapes().size() - 1);
            assertEquals(7.0, last.valueOr(running.id(), -1));
            assertTrue(last.offsetNanos() >= stopCalled, "the final scrape is after stop() was called");
            long previous = Long.MIN_VALUE;
            for (Scrape s : t.scrapes()) {
                assertTrue(s.offsetNanos() > previous && s.offsetNanos() >= 0);
                previous = s.offsetNanos();
            }
            assertEquals(List.of(), t.warnings());
            assertTrue(server.accepts.get(0).startsWith("text/plain;version=0.0.4"));
            assertEquals(t.scrapes().size(), scraper.stop().scrapes().size(), "stop() is idempotent");
        }
    }

    @Test
    void keyGoesToTheEndpointsOriginOnly() throws Exception {
        try (TestMetricsServer api = new TestMetricsServer(); TestMetricsServer elsewhere = new TestMetricsServer()) {
            api.body = "up 1\n";
            elsewhere.body = "up 1\n";
            try (ServerMetricsScraper same = ServerMetricsScraper.start(
                    config(api.url("/v1"), api.url("/metrics"), "sk-test-123"), System.nanoTime(), null)) {
                awaitTimeline(same, t -> !t.scrapes().isEmpty());
            }
            try (ServerMetricsScraper other = ServerMetricsScraper.start(
                    config(api.url("/v1"), elsewhere.url("/metrics"), "sk-test-123"), System.nanoTime(), null)) {
                awaitTimeline(other, t -> !t.scrapes().isEmpty());
            }
            assertTrue(api.authorizations.stream().allMatch("Bearer sk-test-123"::equals), api.authorizations.toString());
            assertFalse(elsewhere.authorizations.isEmpty());
            assertTrue(elsewhere.authorizations.stream().allMatch("null"::equals), elsewhere.authorizations.toString());
        }
    }

    @Test
    void redirectsAreFollowedAndTheKeyStaysWithTheEndpointsOrigin() throws Exception {
        try (TestMetricsServer api = new TestMetricsServer(); TestMetricsServer elsewhere = new TestMetricsServer()) {
            api.body = "up 1\n";
            elsewhere.body = "up 2\n";
            api.redirectLocation = "/metrics/";
            assertEquals(1.0, firstValue(config(api.url("/v1"), api.url("/metrics"), "sk-test-123")));
            assertTrue(api.authorizations.size() >= 2);
            assertTrue(api.authorizations.stream().allMatch("Bearer sk-test-123"::equals), api.authorizations.toString());

            api.redirectLocation = elsewhere.url("/metrics").toString();
            assertEquals(2.0, firstValue(config(api.url("/v1"), api.url("/metrics"), "sk-test-123")));
            assertFalse(elsewhere.authorizations.isEmpty());
            assertTrue(elsewhere.authorizations.stream().allMatch("null"::equals), elsewhere.authorizations.toString());

            api.redirectLocation = "/metrics";
            assertEquals("HTTP 307 after 3 redirects", firstFailure(config(api.url("/v1"), api.url("/metrics"), null)));
        }
    }

    private static double firstValue(ServerMetricsConfig c) throws InterruptedException {
        try (ServerMetricsScraper s = ServerMetricsScraper.start(c, System.nanoTime(), null)) {
            ServerMetricsTimeline t = awaitTimeline(s, tl -> !tl.scrapes().isEmpty());
            Scrape first = t.scrapes().get(0);
            assertTrue(first.ok(), first.failure());
            return first.value(0);
        }
    }

    /**
     * A periodic scrape stuck in flight (a /metrics that does not answer) when the run asks for its window's opening
     * scrape: the opening scrape runs on its own thread and connection and is read at once, while the stuck one is
     * still in flight. QA: one scraper thread, the opening scrape waited behind a periodic one and came 70-120 ms
     * late; here it would have waited the stuck scrape's whole timeout, and come after its failure.
     */
    @Test
    void theWindowsOpeningScrapeDoesNotWaitBehindAPeriodicOneInFlight() throws Exception {
        ServerMetricsScraper scraper = null;
        try (TestMetricsServer server = new TestMetricsServer()) {
            server.body = "up 1\n";
            ServerMetricsConfig c = ServerMetricsConfig.forEndpoint(server.url("/v1"), null)
                    .withMetricsUrl(server.url("/metrics")).withInterval(Duration.ofMillis(200))
                    .withTimeout(Duration.ofSeconds(20));
            scraper = ServerMetricsScraper.start(c, System.nanoTime(), null);
            awaitTimeline(scraper, t -> t.successfulScrapes().size() == 1);
            server.stall = TestMetricsServer.Stall.BEFORE_HEADERS;
            int asked = server.headers.size();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (server.headers.size() == asked && System.nanoTime() < deadline) Thread.sleep(2);
            assertEquals(asked + 1, server.headers.size(), "the next periodic scrape is in flight, stuck");
            server.stall = TestMetricsServer.Stall.NONE;
            long openedNanos = System.nanoTime();
            scraper.scrapeAt(openedNanos);
            ServerMetricsTimeline t = awaitTimeline(scraper, tl -> tl.scrapes().size() >= 2);
            assertEquals(2, t.successfulScrapes().size(), "the opening scrape answered first: " + t.scrapes().size());
            assertTrue(t.failedScrapes().isEmpty(), "read while the periodic scrape was still stuck");
        } finally {
            if (scraper != null) scraper.stop(); // the server closed first: the stuck scrape ends at once
        }
    }

    @Test
    void serverErrorIsAGapAndAWarningAndScrapingRecovers() throws Exception {
        try (TestMetricsServer server = new TestMetricsServer()) {
            server.status = 500;
            server.body = "Internal Server Error";
            List<String> heard = new CopyOnWriteArrayList<>();
            ServerMetricsScraper scraper = ServerMetricsScraper.start(
                    config(server.url("/v1"), server.url("/metrics"), null), System.nanoTime(), heard::add);
            awaitTimeline(scraper, t -> t.failedScrapes().size() >= 3);
            server.status = 200;
            server.body = "up 1\n";
            ServerMetricsTimeline t = awaitTimeline(scraper, tl -> !tl.successfulScrapes().isEmpty());
            scraper.stop();

            assertEquals("HTTP 500", t.failedScrapes().get(0).failure());
            assertEquals(2, heard.size(), heard.toString());
            assertTrue(heard.get(0).contains("failed (HTTP 500); the run goes on"), heard.get(0));
            assertTrue(heard.get(1).endsWith("are answered again: the server timeline's gap ends here"), heard.get(1));
            String warning = scraper.warnings().get(0);
            assertTrue(warning.startsWith("server metrics from " + server.url("/metrics") + ": "), warning);
            assertTrue(warning.contains("× HTTP 500, first sent at "), warning);
        }
    }

    @Test
    void stalledServerIsATimeoutGap() throws Exception {
        for (TestMetricsServer.Stall stall : List.of(TestMetricsServer.Stall.BEFORE_HEADERS,
                TestMetricsServer.Stall.AFTER_HEADERS)) {
            try (TestMetricsServer server = new TestMetricsServer()) {
                server.stall = stall;
                server.body = "up 1\nup2 2\nup3 3\n";
                ServerMetricsConfig c = config(server.url("/v1"), server.url("/metrics"), null)
                        .withTimeout(Duration.ofMillis(150));
                ServerMetricsScraper scraper = ServerMetricsScraper.start(c, System.nanoTime(), null);
                ServerMetricsTimeline t = awaitTimeline(scraper, tl -> tl.failedScrapes().size() >= 2);
                scraper.stop();
                assertEquals("timed out after 150 ms", t.failedScrapes().get(0).failure(), stall.name());
            }
        }
    }

    @Test
    void refusedConnectionHtmlAndMalformedTextAreGapsWithTheirReason() throws Exception {
        try (TestMetricsServer server = new TestMetricsServer()) {
            URI closed;
            try (TestMetricsServer gone = new TestMetricsServer()) {
                closed = gone.url("/metrics");
            }
            assertEquals("connection refused or unreachable", firstFailure(config(server.url("/v1"), closed, null)));

            server.contentType = "text/html; charset=utf-8";
            server.body = "<html>metrics</html>";
            assertEquals("not Prometheus text (Content-Type text/html; charset=utf-8)",
                    firstFailure(config(server.url("/v1"), server.url("/metrics"), null)));

            server.contentType = "text/plain; version=0.0.4";
            server.body = "up 1\nup{ 2\n";
            assertTrue(firstFailure(config(server.url("/v1"), server.url("/metrics"), null))
                    .startsWith("malformed metrics text, line 2: "));

            server.contentType = null;
            server.body = "up 1\n";
            try (ServerMetricsScraper s = ServerMetricsScraper.start(
                    config(server.url("/v1"), server.url("/metrics"), null), System.nanoTime(), null)) {
                assertTrue(awaitTimeline(s, t -> !t.scrapes().isEmpty()).scrapes().get(0).ok(),
                        "no content type: the body decides");
            }
        }
    }

    @Test
    void realVllmBodyBecomesSeriesWithoutCreationTimes() throws Exception {
        try (TestMetricsServer server = new TestMetricsServer()) {
            server.body = Fixtures.exposition("vllm-0.0.4.txt");
            ServerMetricsScraper scraper = ServerMetricsScraper.start(
                    config(server.url("/v1"), server.url("/metrics"), null), System.nanoTime(), null);
            awaitTimeline(scraper, t -> !t.scrapes().isEmpty());
            ServerMetricsTimeline t = scraper.stop();
            assertTrue(t.hasSample("vllm:generation_tokens_total"));
            assertTrue(t.series().stream().noneMatch(s -> s.name().endsWith("_created")));
            assertEquals(22 + 1, t.seriesNamed("vllm:time_to_first_token_seconds_bucket").size());
        }
    }

    private static String firstFailure(ServerMetricsConfig c) throws InterruptedException {
        try (ServerMetricsScraper s = ServerMetricsScraper.start(c, System.nanoTime(), null)) {
            return awaitTimeline(s, t -> !t.scrapes().isEmpty()).scrapes().get(0).failure();
        }
    }
}

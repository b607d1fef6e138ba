package io.llmperf4j.servermetrics.scrape;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.servermetrics.summary.ServerSideSummarizer;
import io.llmperf4j.servermetrics.summary.ServerSideSummary;
import io.llmperf4j.servermetrics.timeline.Scrape;
import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * How a failed scrape is dated, counted and worded, against a real server on 127.0.0.1 (QA r4): a scrape that hangs
 * belongs to the instant it was sent and to the window it was sent in.
 */
class ScrapeFailureAccountingTest {

    private static final Duration TIMEOUT = Duration.ofMillis(400);
    private static final String VLLM = "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\"} 1\n"
            + "# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total{model_name=\"m\"} 5\n";

    /** Answers its first {@code answered} scrapes, then takes every later one and never answers it (gtserver's hang). */
    private static final class HangingServer implements AutoCloseable {
        private final HttpServer server;
        private final ExecutorService executor = Executors.newCachedThreadPool();
        private final CountDownLatch release = new CountDownLatch(1);
        /** {@link System#nanoTime()} when each request arrived. */
        final List<Long> arrivals = new CopyOnWriteArrayList<>();

        HangingServer(int answered) throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.createContext("/metrics", exchange -> {
                arrivals.add(System.nanoTime());
                try (exchange) {
                    if (arrivals.size() > answered) {
                        release.await(30, TimeUnit.SECONDS);
                        return;
                    }
                    byte[] body = VLLM.getBytes(StandardCharsets.UTF_8);
                    exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
                    exchange.sendResponseHeaders(200, body.length);
                    exchange.getResponseBody().write(body);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            server.setExecutor(executor);
            server.start();
        }

        URI url(String path) {
            return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
        }

        @Override
        public void close() {
            release.countDown();
            server.stop(0);
            executor.shutdownNow();
        }
    }

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
    void aScrapeThatHangsIsDatedWhenItWasSentAndCountsInTheWindowItWasSentIn() throws Exception {
        try (HangingServer server = new HangingServer(2)) {
            long runStart = System.nanoTime();
            ServerMetricsConfig config = ServerMetricsConfig.forEndpoint(server.url("/v1"), null)
                    .withMetricsUrl(server.url("/metrics")).withInterval(Duration.ofMillis(50)).withTimeout(TIMEOUT);
            ServerMetricsScraper scraper = ServerMetricsScraper.start(config, runStart, null);
            awaitTimeline(scraper, t -> !t.failedScrapes().isEmpty());
            ServerMetricsTimeline timeline = scraper.stop();

            Scrape hung = timeline.failedScrapes().get(0);
            long arrived = server.arrivals.get(2) - runStart; // the third scrape, the first the server let hang
            assertEquals("timed out after 400 ms", hung.failure());
            assertTrue(hung.offsetNanos() <= arrived, "dated when it was sent (" + hung.offsetNanos()
                    + " ns), before the server took it (" + arrived + " ns), not half its timeout later");
            assertTrue(hung.durationNanos() >= TIMEOUT.toNanos() && hung.failedAtNanos() > arrived,
                    "it failed at the end of its timeout, after the server took it");

            // the level's window ended while that scrape hung: it was sent inside it, so it is the window's gap
            long windowEnd = arrived + 1_000_000L;
            ServerSideSummary summary = ServerSideSummarizer.summarizeWholeLevel(timeline, 0, windowEnd, null);
            assertEquals(3, summary.scrapesInWindow(), "the two answered scrapes and the one that hung");
            assertEquals(1, summary.failedScrapesInWindow());

            String warning = scraper.warnings().get(0);
            String sent = String.format(Locale.ROOT, "%.1f s", hung.offsetNanos() / 1e9);
            String failed = String.format(Locale.ROOT, "%.1f s", hung.failedAtNanos() / 1e9);
            assertTrue(warning.contains("× timed out after 400 ms, first sent at " + sent + " (failed at " + failed
                    + ")"), warning);
            assertFalse(warning.contains(", first at "), warning);
        }
    }
}

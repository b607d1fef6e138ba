package io.llmperf4j.servermetrics.scrape;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The connection the window's edge scrapes go over is open before an edge is asked for: it was opened by the first
 * edge scrape itself, so the opening scrape's time (opening_scrape_s) held the connect (an https handshake) beside
 * the exchange. A real HTTP server on 127.0.0.1 that counts its connections and which one each request came on.
 */
@Timeout(30)
class EdgeConnectionTest {

    private static final String BODY = "# TYPE vllm:generation_tokens counter\nvllm:generation_tokens_total 5\n";

    @Test
    void theEdgeConnectionIsOpenedBeforeTheWindowAndKeptForItsScrape() throws Exception {
        List<Integer> requestConnections = new CopyOnWriteArrayList<>();
        RawHttpServer.Answer ok = RawHttpServer.ok(BODY);
        try (RawHttpServer server = new RawHttpServer((head, out, c) -> {
            requestConnections.add(c.number);
            return ok.answer(head, out, c);
        })) {
            // one periodic scrape at the start, the next an hour away: every other scrape is an edge or the final
            ServerMetricsConfig config = ServerMetricsConfig.forEndpoint(server.url("/v1"), null)
                    .withMetricsUrl(server.url("/metrics")).withInterval(Duration.ofHours(1));
            ServerMetricsScraper scraper = ServerMetricsScraper.start(config, System.nanoTime(), null);
            try {
                // the periodic scrapes' connection and the edges' own, opened before any edge is asked for
                awaitUntil(() -> server.connections() == 2 && requestConnections.size() == 1);
                scraper.scrapeAt(System.nanoTime()); // the measured window opens
                awaitUntil(() -> requestConnections.size() == 2);
            } finally {
                ServerMetricsTimeline t = scraper.stop();
                assertTrue(t.failedScrapes().isEmpty(), t.failedScrapes()::toString);
            }
            // the edge scrape went over the other connection, opened before it; the final one over the periodic one
            int periodic = requestConnections.get(0);
            assertEquals(List.of(periodic, 3 - periodic, periodic), requestConnections);
            assertEquals(2, server.connections());
        }
    }

    /** Polls {@code done}; the test's timeout only guards against a hang. */
    private static void awaitUntil(java.util.function.BooleanSupplier done) throws InterruptedException {
        while (!done.getAsBoolean()) Thread.sleep(5);
    }
}

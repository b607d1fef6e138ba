package io.llmperf4j.servermetrics.scrape;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Which credentials a scrape carries to which origin, and what a 401 or 403 says, against real servers on 127.0.0.1
 * (two servers on two ports are two origins): the run's key and --header values go to the API's origin only, the
 * scrape's own headers (--server-metrics-header) to the metrics URL's; a refusal names the URL's need and where the
 * credentials came from, never their values.
 */
class ScrapeCredentialsTest {

    /** The run's credentials as its requests carry them: the key's header and a gateway's --header. */
    private static final Map<String, String> RUN = Map.of("Authorization", "Bearer sk-run-secret",
            "X-Gateway", "gw-secret");

    private static ServerMetricsConfig config(TestMetricsServer api) {
        return ServerMetricsConfig.forEndpoint(api.url("/v1"), null).withEndpointHeaders(RUN);
    }

    private static void assertNoSecret(String text) {
        assertFalse(text.contains("sk-run-secret") || text.contains("gw-secret") || text.contains("metrics-secret"),
                text);
    }

    @Test
    void theApisOriginGetsTheRunsKeyAndHeaders() throws Exception {
        try (TestMetricsServer api = new TestMetricsServer()) {
            api.body = "up 1\n";
            api.required = Map.of("authorization", "Bearer sk-run-secret", "x-gateway", "gw-secret");
            ProbeResult r = MetricsProbe.probe(config(api));
            assertTrue(r.ok(), r.detail());
            assertTrue(r.sentCredentials());
        }
    }

    @Test
    void anotherOriginGetsNoneUnlessGivenAndItsRefusalSaysTheScrapeNeedsCredentials() throws Exception {
        try (TestMetricsServer api = new TestMetricsServer(); TestMetricsServer metrics = new TestMetricsServer()) {
            metrics.body = "up 1\n";
            metrics.required = Map.of("authorization", "Bearer metrics-secret");
            ServerMetricsConfig c = config(api).withMetricsUrl(metrics.url("/metrics"));
            ProbeResult refused = MetricsProbe.probe(c);
            assertFalse(refused.ok());
            assertEquals(401, refused.httpStatus());
            assertFalse(refused.sentCredentials());
            assertNull(metrics.headers.get(0).get("authorization"), "the run's key stays with the API's origin");
            assertNull(metrics.headers.get(0).get("x-gateway"), "so does its --header");
            assertEquals("HTTP 401: the scrape needs credentials and sent none, since the run's key and --header go "
                    + "only to the API's origin (" + Origins.origin(api.url("/")) + "): give them with "
                    + "--server-metrics-header 'NAME: VALUE'", refused.detail());

            ProbeResult given = MetricsProbe.probe(c.withMetricsHeaders(
                    Map.of("Authorization", "Bearer metrics-secret")));
            assertTrue(given.ok(), given.detail());
            Map<String, String> sent = metrics.headers.get(metrics.headers.size() - 1);
            assertEquals("Bearer metrics-secret", sent.get("authorization"));
            assertNull(sent.get("x-gateway"), "the scrape's own headers, not the run's");
        }
    }

    @Test
    void refusedCredentialsAreNamedByWhereTheyCameFromNeverByValue() throws Exception {
        try (TestMetricsServer api = new TestMetricsServer()) {
            api.body = "up 1\n";
            api.required = Map.of("authorization", "Bearer metrics-secret");
            api.refusal = 403;
            ProbeResult runs = MetricsProbe.probe(config(api));
            assertEquals(403, runs.httpStatus());
            assertEquals("HTTP 403: the scrape needs credentials; the server refused those sent (the run's key and "
                    + "--header values): give /metrics' own with --server-metrics-header 'NAME: VALUE'", runs.detail());

            ProbeResult both = MetricsProbe.probe(config(api).withMetricsHeaders(Map.of("X-Other", "metrics-secret")));
            assertEquals("HTTP 403: the scrape needs credentials; the server refused those sent (the run's key and "
                    + "--header values, and --server-metrics-header)", both.detail());
            assertNoSecret(runs.detail() + both.detail());

            ProbeResult replaced = MetricsProbe.probe(config(api).withMetricsHeaders(
                    Map.of("authorization", "Bearer metrics-secret")));
            assertTrue(replaced.ok(), "--server-metrics-header replaces the run's header of the same name");
        }
    }

    @Test
    void aScrapeRefusedMidRunIsOneWarningNamingTheUrlAndItsNeed() throws Exception {
        try (TestMetricsServer api = new TestMetricsServer(); TestMetricsServer metrics = new TestMetricsServer()) {
            metrics.body = "up 1\n";
            List<String> warnings = new CopyOnWriteArrayList<>();
            ServerMetricsConfig c = config(api).withMetricsUrl(metrics.url("/metrics"))
                    .withInterval(Duration.ofMillis(20));
            try (ServerMetricsScraper scraper = ServerMetricsScraper.start(c, System.nanoTime(), warnings::add)) {
                awaitScrapes(scraper, 1);
                metrics.required = Map.of("authorization", "Bearer metrics-secret"); // a token that expired
                int before = scraper.snapshot().scrapes().size();
                awaitScrapes(scraper, before + 3);
                ServerMetricsTimeline t = scraper.stop();
                assertTrue(t.failedScrapes().size() >= 3);
            }
            assertEquals(1, warnings.size(), warnings.toString());
            String w = warnings.get(0);
            assertTrue(w.startsWith("server metrics from " + Origins.display(metrics.url("/metrics"))
                    + " failed (HTTP 401: the scrape needs credentials"), w);
            assertNoSecret(w);
        }
    }

    /** Polls until the scraper has {@code n} scrapes; the deadline only guards against a hang. */
    private static void awaitScrapes(ServerMetricsScraper scraper, int n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (scraper.snapshot().scrapes().size() < n) {
            if (System.nanoTime() > deadline) throw new AssertionError("fewer than " + n + " scrapes");
            Thread.sleep(5);
        }
    }
}

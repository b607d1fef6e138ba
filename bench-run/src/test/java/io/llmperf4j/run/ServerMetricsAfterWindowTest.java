package io.llmperf4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.engine.load.Warmup;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A periodic scrape that fails once the level's sending closed (its measured window over) and before the level's
 * final scrape is said with the level's warnings at its end, not live: it printed "server metrics from ... failed
 * (HTTP 401); the run goes on, the server timeline has a gap" after the level's last request, a run that was no
 * longer going on. A scrape failing inside the window is still said live. A real /metrics server on 127.0.0.1.
 */
@Timeout(60)
class ServerMetricsAfterWindowTest {

    private static final String BODY = "# TYPE vllm:generation_tokens counter\n"
            + "vllm:generation_tokens_total{model_name=\"m\"} 100\n";
    private static final String LIVE = "the run goes on, the server timeline has a gap";

    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

    private String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    private static CommonSettings common() {
        return new CommonSettings(new EndpointTarget.Embedded(), "m", 1, 60, 1, Map.of(), null, "openai", Map.of(),
                Duration.ofSeconds(30), Map.of(), null, null, Duration.ofSeconds(10), false, false, null, Map.of());
    }

    @Test
    void aScrapeFailingAfterTheWindowIsSaidAtTheLevelsEndNotLive() throws Exception {
        try (ServerMetricsSessionTest.FakeMetrics server = new ServerMetricsSessionTest.FakeMetrics()) {
            server.body = BODY;
            URI endpoint = server.url("/v1/chat/completions");
            ServerMetricsSession session = ServerMetricsSession.open(
                    new ServerMetricsOptions(true, null, Duration.ofMillis(20)), endpoint, null, common(), err);
            assertNotNull(session, err());

            // inside the window: a failure is said live, and so is the recovery
            session.levelStarted(System.nanoTime(), Warmup.NONE);
            server.required = Map.of("x-not-sent", "1"); // every scrape now gets 401
            awaitRequests(server, server.requests.size() + 2);
            server.required = Map.of();
            awaitRequests(server, server.requests.size() + 2);
            assertTrue(err().contains("failed (HTTP 401"), err());
            assertTrue(err().contains(LIVE), err());
            session.levelEnded(null, System.currentTimeMillis(), 1_000_000L, false);

            // the next level: its sending closed, then scrapes fail until its final one, which answers
            errBytes.reset();
            long windowStartEpochMillis = System.currentTimeMillis();
            long windowStart = System.nanoTime();
            session.levelStarted(windowStart, Warmup.NONE);
            awaitRequests(server, server.requests.size() + 2);
            long durationNanos = System.nanoTime() - windowStart;
            session.sendingClosed();
            server.required = Map.of("x-not-sent", "1");
            awaitRequests(server, server.requests.size() + 2);
            server.required = Map.of();
            assertEquals("", err(), "nothing said live after the window");
            ServerMetricsSession.LevelServerMetrics level = session.levelEndedQuietly(null, windowStartEpochMillis,
                    durationNanos, false);
            assertTrue(level.timeline().failedScrapes().size() >= 2, level.timeline().failedScrapes()::toString);
            session.sayWarnings(level);
            // said once, at the level's end, with the other failures of its timeline
            assertTrue(err().contains(" scrapes failed (gaps in the timeline): "), err());
            assertTrue(err().contains("× HTTP 401"), err());
            assertFalse(err().contains(LIVE), err());
        }
    }

    private static void awaitRequests(ServerMetricsSessionTest.FakeMetrics server, int n) throws InterruptedException {
        while (server.requests.size() < n) Thread.sleep(5);
    }
}

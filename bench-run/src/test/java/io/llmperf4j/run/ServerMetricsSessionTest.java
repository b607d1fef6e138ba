package io.llmperf4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.servermetrics.summary.ServerSideSummary;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The run's scrape session against a real /metrics server on 127.0.0.1 whose counters and required credentials the
 * test sets: which credentials the scrape carries (the run's key in its API's header and --header to the API's
 * origin, --server-metrics-header to any), one warning line for a refusal, and a level's summary over the whole
 * level from the counters set.
 */
class ServerMetricsSessionTest {

    private static final Duration FAST = Duration.ofMillis(20);

    /** A real HTTP server serving /metrics as set; a request without the {@link #required} headers gets 401. */
    static final class FakeMetrics implements AutoCloseable {
        private final HttpServer server;
        final List<Map<String, String>> requests = new CopyOnWriteArrayList<>();
        volatile String body = "";
        volatile Map<String, String> required = Map.of();
        /** How long /metrics takes to answer. */
        volatile long delayMillis;

        FakeMetrics() throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.createContext("/", this::handle);
            server.start();
        }

        URI url(String path) {
            return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
        }

        private void handle(HttpExchange exchange) throws IOException {
            Map<String, String> got = new TreeMap<>();
            exchange.getRequestHeaders().forEach((k, v) -> got.put(k.toLowerCase(Locale.ROOT), String.join(",", v)));
            requests.add(got);
            try (exchange) {
                if (delayMillis > 0) Thread.sleep(delayMillis);
                if (!required.entrySet().stream().allMatch(e -> e.getValue().equals(got.get(e.getKey())))) {
                    exchange.sendResponseHeaders(401, -1);
                    return;
                }
                byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                exchange.sendResponseHeaders(200, bytes.length);
                exchange.getResponseBody().write(bytes);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    /** vLLM's text: model m's and another model's running requests and generation tokens. */
    private static String vllm(int runningM, long generationM, long generationOther) {
        return "# TYPE vllm:num_requests_running gauge\n"
                + "vllm:num_requests_running{model_name=\"m\"} " + runningM + "\n"
                + "vllm:num_requests_running{model_name=\"other\"} 3\n"
                + "# TYPE vllm:generation_tokens counter\n"
                + "vllm:generation_tokens_total{model_name=\"m\"} " + generationM + "\n"
                + "vllm:generation_tokens_total{model_name=\"other\"} " + generationOther + "\n";
    }

    private static CommonSettings common(String llmApi, Map<String, String> headers, Map<String, String> scrape) {
        return new CommonSettings(new EndpointTarget.Embedded(), "m", 1, 60, 1, Map.of(), null, llmApi, Map.of(),
                Duration.ofSeconds(30), headers, null, null, Duration.ofSeconds(10), false, false, null, scrape);
    }

    private static ServerMetricsOptions options(URI url) {
        return new ServerMetricsOptions(true, url, FAST);
    }

    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

    /**
     * What the session said, but the slow-check warning: a loaded machine can truly take 0.5 s to have the fake
     * server's answer, and that warning is not these tests' subject (it has tests of its own).
     */
    private String err() {
        return errBytes.toString(StandardCharsets.UTF_8).lines().filter(l -> !l.contains("answered the check in"))
                .map(l -> l + System.lineSeparator()).collect(java.util.stream.Collectors.joining());
    }

    @Test
    void theApisOriginGetsTheRunsKeyInItsApisHeaderAndTheHeaders() throws Exception {
        try (FakeMetrics server = new FakeMetrics()) {
            server.body = vllm(0, 0, 0);
            server.required = Map.of("authorization", "Bearer sk-run-secret", "x-gateway", "gw-secret");
            ServerMetricsSession openAi = ServerMetricsSession.open(options(null), server.url("/v1/chat/completions"),
                    "sk-run-secret", common("openai", Map.of("X-Gateway", "gw-secret"), Map.of()), err);
            assertNotNull(openAi, err());

            server.required = Map.of("x-api-key", "sk-run-secret", "x-gateway", "gw-secret");
            ServerMetricsSession anthropic = ServerMetricsSession.open(options(null), server.url("/v1/messages"),
                    "sk-run-secret", common("anthropic", Map.of("X-Gateway", "gw-secret"), Map.of()), err);
            assertNotNull(anthropic, "the key in the header the API takes it in: " + err());
            assertEquals("", err());
        }
    }

    @Test
    void anotherOriginGetsNothingButWhatTheUserGaveAndARefusalIsOneLine() throws Exception {
        try (FakeMetrics api = new FakeMetrics(); FakeMetrics metrics = new FakeMetrics()) {
            metrics.body = vllm(0, 0, 0);
            metrics.required = Map.of("authorization", "Bearer metrics-secret");
            URI endpoint = api.url("/v1/chat/completions");
            ServerMetricsSession refused = ServerMetricsSession.open(options(metrics.url("/metrics")), endpoint,
                    "sk-run-secret", common("openai", Map.of("X-Gateway", "gw-secret"), Map.of()), err);
            assertNull(refused);
            List<String> lines = err().lines().toList();
            assertEquals(1, lines.size(), err());
            assertEquals("llmperf4j: warning: no server metrics from " + metrics.url("/metrics") + " (HTTP 401: the "
                    + "scrape needs credentials and sent none, since the run's key and --header go only to the API's "
                    + "origin (" + api.url("") + "): give them with --server-metrics-header 'NAME: VALUE'); the run "
                    + "goes on without the server's side (--no-server-metrics silences this)", lines.get(0));
            assertNull(metrics.requests.get(0).get("authorization"));
            assertNull(metrics.requests.get(0).get("x-gateway"));

            ServerMetricsSession given = ServerMetricsSession.open(options(metrics.url("/metrics")), endpoint,
                    "sk-run-secret", common("openai", Map.of("X-Gateway", "gw-secret"),
                            Map.of("Authorization", "Bearer metrics-secret")), err);
            assertNotNull(given, err());
            Map<String, String> sent = metrics.requests.get(metrics.requests.size() - 1);
            assertEquals("Bearer metrics-secret", sent.get("authorization"));
            assertNull(sent.get("x-gateway"), "the run's --header stays with the API's origin");
            assertTrue(api.requests.isEmpty(), "the API was not scraped");
            assertEquals(1, err().lines().count());
        }
    }

    /**
     * Without warmup a level's figures are the counters' whole increase from the baseline scrape to the final one
     * (m's 250 tokens, not the other model's), per second of the client's window, and the peak from the scrapes
     * inside it: one summary, its warnings said once.
     */
    @Test
    void aLevelIsSummarisedOnceOverTheWholeLevel() throws Exception {
        try (FakeMetrics server = new FakeMetrics()) {
            server.body = vllm(0, 1000, 500);
            ServerMetricsSession session = ServerMetricsSession.open(options(null),
                    server.url("/v1/chat/completions"), null, common("openai", Map.of(), Map.of()), err);
            assertNotNull(session, err());
            long levelStart = System.nanoTime();
            session.levelStarted(levelStart, Warmup.NONE);
            // the window starts at the first send, after the baseline scrape
            long windowStartEpochMillis = System.currentTimeMillis();
            long windowStart = System.nanoTime();
            server.body = vllm(5, 1100, 600);
            // the second scrape after the change read the loaded server, and it ended before the third began
            awaitRequests(server, server.requests.size() + 3);
            server.body = vllm(0, 1250, 700);
            long durationNanos = System.nanoTime() - windowStart;
            ServerMetricsSession.LevelServerMetrics level = session.levelEnded(null, windowStartEpochMillis,
                    durationNanos, false);
            ServerSideSummary s = level.summary();
            assertEquals("m", s.model(), "the run's --model");
            assertEquals(250L, s.generationTokens(), "m's counter from the baseline to the final scrape");
            assertEquals(250 / (durationNanos / 1e9), s.generationTokensPerS(), 1e-6);
            assertEquals(durationNanos / 1e9, s.windowS(), 1e-9);
            assertEquals(5.0, s.peakRequestsRunning(), "m's running, not 8 with the other model's 3");
            assertTrue(level.timeline().successfulScrapes().size() >= 3);
            assertEquals("", err());

            session.levelStarted(System.nanoTime(), Warmup.NONE);
            level = session.levelEnded("llama", System.currentTimeMillis(), 1_000_000L, false);
            assertEquals(1, err().lines().filter(l -> l.contains("no series labelled model_name=\"llama\"")).count(),
                    "a level's warnings are said once: " + err());
            assertNull(level.summary().model());
        }
    }

    private static void awaitRequests(FakeMetrics server, int n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (server.requests.size() < n) {
            if (System.nanoTime() > deadline) throw new AssertionError("fewer than " + n + " scrapes");
            Thread.sleep(5);
        }
    }
}

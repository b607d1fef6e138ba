package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A capped search's final repeat that fails only by its waits for a slot at the cap is the cap's failure, worded as
 * a level held at the cap is (SearchAtCapTest), not "the server may degrade over time". A server on 127.0.0.1
 * answers the first level's 40 requests at once (tens of ms: its writes are not TCP_NODELAY), so rate 10 under
 * {@code --max-concurrency 1} passes; then each answer takes over 230 ms (its first token at once), so the repeat's
 * arrivals, 100 ms apart, wait for the one slot while each is served fast from its actual send: AT_CAP.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SearchRepeatAtCapTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The first level's requests: answered at once; later ones slowly. */
    private static final int FAST = 40;

    @Test
    void aRepeatHeldAtTheCapIsTheCapsFailure(@TempDir Path dir) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        ExecutorService threads = Executors.newFixedThreadPool(4);
        AtomicInteger measured = new AtomicInteger();
        server.setExecutor(threads);
        server.createContext("/v1/chat/completions", exchange -> {
            try (exchange) {
                JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
                boolean slow = body.path("max_tokens").asInt() > 1 && measured.incrementAndGet() > FAST;
                stream(exchange, slow ? 12 : 0);
            }
        });
        server.start();
        CliRun run;
        try {
            run = CliRun.of(Map.of("OPENAI_API_BASE", "http://127.0.0.1:" + server.getAddress().getPort() + "/v1",
                            "OPENAI_API_KEY", "k"), "token-benchmark", "--model", "m", "--mean-input-tokens", "40",
                    "--stddev-input-tokens", "0", "--mean-output-tokens", "20", "--stddev-output-tokens", "0",
                    "--max-num-completed-requests", "40", "--slo", "ttft_p90<=500ms", "--search", "rate",
                    "--arrival", "constant", "--search-min", "10", "--search-max", "10", "--search-level-max", "40",
                    "--max-concurrency", "1", "--no-client-warmup", "--no-server-metrics", "--results-dir",
                    dir.toString());
        } finally {
            server.stop(0);
            threads.shutdownNow();
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.err().contains("llmperf4j: search level 1 (rate 10): pass"), run::toString);
        String repeat = run.err().lines().filter(l -> l.startsWith("llmperf4j: search level 2 ")).findFirst()
                .orElseThrow(() -> new AssertionError("no repeat line\n" + run));
        assertTrue(repeat.contains("; only by the waits for a slot at the cap: rate 10: "), repeat);
        assertTrue(run.out().contains("the best level (rate 10) failed when repeated at the end only by the waits for "
                + "a slot at the cap (--max-concurrency 1): rate 10: from the actual send ttft_p90<=500ms is met "
                + "(estimate "), run::toString);
        assertTrue(run.out().contains("; not the service falling behind nor a server that degrades: the capacity found "
                + "is the cap's, a lower bound for the service"), run::toString);
        assertFalse(run.out().contains("may degrade"), run::toString);
        // said once: the levels' held-at-the-cap warning leaves the repeat to its own
        assertFalse(run.out().contains("held at the cap (--max-concurrency 1) at rate 10"), run::toString);
    }

    /** A 200 event stream of 20 "alpha " chunks, {@code pauseMillis} apart after the first, then usage and [DONE]. */
    private static void stream(HttpExchange exchange, int pauseMillis) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        OutputStream out = exchange.getResponseBody();
        try {
            for (int i = 0; i < 20; i++) {
                if (i > 0 && pauseMillis > 0) Thread.sleep(pauseMillis);
                SseEvents.write(out, SseEvents.chatChunk("{\"content\":\"alpha \"}", null));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        SseEvents.write(out, SseEvents.chatChunk("{}", "\"length\""));
        SseEvents.write(out, "{\"id\":\"chatcmpl-test\",\"object\":\"chat.completion.chunk\",\"choices\":[],"
                + "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":20,\"total_tokens\":30}}");
        SseEvents.write(out, "[DONE]");
    }
}

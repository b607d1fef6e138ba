package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An error event inside a 200 stream is read by whether tokens came before it, the real command against a server on
 * 127.0.0.1 that streams as vLLM does. QA (s44): vLLM's mid-stream error event says code 400 for any exception in its
 * generator; after 2 content tokens the REQUESTS_FAILED warning said "check the configuration ...: the server refused
 * the requests or could not be reached", neither of which was true. After tokens it is the server failing while
 * serving (on the console, in the summary and on the page); a 4xx as the stream's first event is still the server
 * refusing the request.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StreamErrorCauseTest {

    private static final String ERROR = "{\"object\":\"error\",\"message\":\"vLLM engine error (test)\","
            + "\"type\":\"BadRequestError\",\"param\":null,\"code\":400}";

    @Test
    void a400AfterTokensIsTheServerFailingWhileServingNotTheConfiguration(@TempDir Path dir) throws Exception {
        String warning = requestsFailed(dir, true);
        assertEquals("3 of 3 requests failed (3 ERROR_IN_STREAM: 3x 400 vLLM engine error (test)): the server may "
                + "not hold this load (rate limits, server errors or timeouts), or it failed while answering (error "
                + "events in streams it had accepted: an engine error?): check its logs. Report the failure rate with "
                + "the results.", warning);
        // the page's Errors sentence names them among the capacity signs, as written and as `report` rebuilds it
        String sentence = "3 point at capacity (429, 408, 5xx, timeouts, dropped connections, error events after "
                + "tokens): the service did not hold this load, or it failed while answering (error events in "
                + "streams it had accepted: an engine error?): check its logs.";
        for (String page : RunFolder.writtenAndRebuiltPages(dir)) {
            assertTrue(page.contains(sentence), () -> page.substring(Math.max(0, page.indexOf("<h2>Errors</h2>")),
                    Math.min(page.length(), page.indexOf("<h2>Errors</h2>") + 1500)));
        }
    }

    @Test
    void a400AsTheStreamsFirstEventIsStillTheServerRefusingTheRequest(@TempDir Path dir) throws Exception {
        String warning = requestsFailed(dir, false);
        assertTrue(warning.startsWith("3 of 3 requests failed (3 ERROR_IN_STREAM: 3x 400 vLLM engine error (test)): "
                + "check the configuration"), warning);
        assertFalse(warning.contains("failed while answering"), warning);
    }

    /** The REQUESTS_FAILED warning of a 3-request run against {@link #serve} ({@code tokensFirst}). */
    private static String requestsFailed(Path dir, boolean tokensFirst) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        ExecutorService threads = Executors.newFixedThreadPool(4);
        server.setExecutor(threads);
        server.createContext("/v1/chat/completions", exchange -> serve(exchange, tokensFirst));
        server.start();
        try {
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", "http://127.0.0.1:" + server.getAddress().getPort()
                            + "/v1", "OPENAI_API_KEY", "k"), "token-benchmark", "--model", "m",
                    "--mean-input-tokens", "40", "--stddev-input-tokens", "0", "--mean-output-tokens", "8",
                    "--stddev-output-tokens", "0", "--no-client-warmup", "--no-server-metrics",
                    "--num-concurrent-requests", "1", "--max-num-completed-requests", "3",
                    "--results-dir", dir.toString());
            assertEquals(4, run.exitCode(), run::toString); // every request failed
            JsonNode summary = RunFolder.summary(dir);
            String warning = RunFolder.warning(summary, "REQUESTS_FAILED");
            assertTrue(warning != null, run::toString);
            assertTrue(run.out().contains("[REQUESTS_FAILED] " + warning), run::toString);
            return warning;
        } finally {
            server.stop(0);
            threads.shutdownNow();
        }
    }

    /**
     * 200 with an event stream: the role chunk and two content tokens when {@code tokensFirst}, then vLLM's error
     * event (code 400) and {@code [DONE]}.
     */
    private static void serve(HttpExchange exchange, boolean tokensFirst) throws IOException {
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            if (tokensFirst) {
                SseEvents.write(out, SseEvents.chatChunk("{\"role\":\"assistant\",\"content\":\"\"}", null));
                SseEvents.write(out, SseEvents.chatChunk("{\"content\":\"The\"}", null));
                SseEvents.write(out, SseEvents.chatChunk("{\"content\":\" cat\"}", null));
            }
            SseEvents.write(out, ERROR);
            SseEvents.write(out, "[DONE]");
        }
    }

}

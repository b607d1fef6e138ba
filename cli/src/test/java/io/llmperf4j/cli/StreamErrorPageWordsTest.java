package io.llmperf4j.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The report page's Errors sentence names error events after tokens among the capacity signs, and says what the
 * REQUESTS_FAILED warning says of them (the server failed while answering), the real command against a server on
 * 127.0.0.1 that streams two tokens and then vLLM's error event (code 400). Its count followed the rule (23d2d27)
 * while its list read "(429, 408, 5xx, timeouts, dropped connections): the service did not hold this load.".
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StreamErrorPageWordsTest {

    @Test
    void thePagesErrorsSentenceNamesErrorEventsAfterTokens(@TempDir Path dir) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        ExecutorService threads = Executors.newFixedThreadPool(4);
        server.setExecutor(threads);
        server.createContext("/v1/chat/completions", StreamErrorPageWordsTest::tokensThenError);
        server.start();
        try {
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", "http://127.0.0.1:" + server.getAddress().getPort()
                            + "/v1", "OPENAI_API_KEY", "k"), "token-benchmark", "--model", "m",
                    "--mean-input-tokens", "40", "--stddev-input-tokens", "0", "--mean-output-tokens", "8",
                    "--stddev-output-tokens", "0", "--no-client-warmup", "--no-server-metrics",
                    "--num-concurrent-requests", "1", "--max-num-completed-requests", "3",
                    "--results-dir", dir.toString());
            assertEquals(4, run.exitCode(), run::toString); // every request failed
        } finally {
            server.stop(0);
            threads.shutdownNow();
        }
        String sentence = "3 point at capacity (429, 408, 5xx, timeouts, dropped connections, error events after "
                + "tokens): the service did not hold this load, or it failed while answering (error events in "
                + "streams it had accepted: an engine error?): check its logs.";
        for (String page : RunFolder.writtenAndRebuiltPages(dir)) {
            assertTrue(page.contains(sentence), () -> page.substring(Math.max(0, page.indexOf("<h2>Errors</h2>")),
                    Math.min(page.length(), page.indexOf("<h2>Errors</h2>") + 1500)));
        }
    }

    /** 200 with an event stream: the role chunk, two content tokens, vLLM's error event (code 400), [DONE]. */
    private static void tokensThenError(HttpExchange exchange) throws IOException {
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            for (String delta : new String[] {"{\"role\":\"assistant\",\"content\":\"\"}", "{\"content\":\"The\"}",
                    "{\"content\":\" cat\"}"}) {
                write(out, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
                        + "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":" + delta
                        + ",\"finish_reason\":null}]}\n\n");
            }
            write(out, "data: {\"object\":\"error\",\"message\":\"vLLM engine error (test)\","
                    + "\"type\":\"BadRequestError\",\"param\":null,\"code\":400}\n\n");
            write(out, "data: [DONE]\n\n");
        }
    }

    private static void write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}

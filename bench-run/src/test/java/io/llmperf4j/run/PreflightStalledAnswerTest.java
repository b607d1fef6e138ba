package io.llmperf4j.run;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.client.Secret;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pre-run check's give-up line says what came before it gave up, against a server on 127.0.0.1 that answers and
 * then goes silent. QA s44: a server that sent 200, the role chunk and 2 content tokens, then nothing, read "no answer
 * from URL ... check its logs and that the model is loaded", the same words as a server that sent only its headers:
 * both had answered, and a stalled engine is not a model that is not loaded.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PreflightStalledAnswerTest {
    private static final LlmApi CHAT = ApiRegistry.get("openai").adapter(true, null);

    @Test
    void tokensThenSilenceSayHowManyCameAndThatTheStreamStalled() throws Exception {
        String line = gaveUpLine(true);
        assertTrue(Pattern.compile("llmperf4j: pre-run check: http://127\\.0\\.0\\.1:\\d+/v1/chat/completions "
                + "answered 200 and 2 content events, then nothing more for \\d+(\\.\\d)? s; the check gave up at 1 s "
                + "\\(--timeout\\) and the run starts anyway \\(a slow server is the run's to measure\\)\\. A stream "
                + "that stops part-way is a stalled server, not a model still loading: check its logs \\(llmperf4j "
                + "doctor checks step by step\\); for a slow answer, raise --timeout").matcher(line).matches(), line);
        assertFalse(line.contains("no answer"), line);
    }

    @Test
    void headersThenSilenceSayTheServerAnsweredWithoutAToken() throws Exception {
        String line = gaveUpLine(false);
        assertTrue(Pattern.compile("llmperf4j: pre-run check: http://127\\.0\\.0\\.1:\\d+/v1/chat/completions "
                + "answered with its status and headers, then no event for \\d+(\\.\\d)? s; the check gave up at 1 s "
                + "\\(--timeout\\) and the run starts anyway \\(a slow server is the run's to measure\\)\\. It "
                + "accepted the request but generated nothing: check its logs for a stalled or overloaded engine "
                + "\\(llmperf4j doctor checks step by step\\); for a slow first token \\(a long prompt, a queue, a "
                + "long reasoning\\), raise --timeout").matcher(line).matches(), line);
        assertFalse(line.contains("no answer"), line);
        assertFalse(line.contains("the model is loaded"), line);
    }

    /**
     * The waiting line, printed with the request still in flight, says what has come so far (the exchange's events
     * and headers): it read "no answer from URL after 5 s" whatever had come.
     */
    @Test
    void theWaitingLineSaysWhatHasComeSoFar() throws Exception {
        List<String> tokens = lines(true, Duration.ofSeconds(1));
        assertEquals(2, tokens.size(), tokens::toString);
        assertTrue(Pattern.compile("llmperf4j: pre-run check: http://127\\.0\\.0\\.1:\\d+/v1/chat/completions "
                + "answered 200 and 3 events but has not finished after 1 s; waiting up to 2 s \\(--timeout\\)")
                .matcher(tokens.get(0)).matches(), tokens::toString);
        assertTrue(tokens.get(1).contains(" answered 200 and 2 content events, then nothing more for "),
                tokens::toString);
        List<String> headers = lines(false, Duration.ofSeconds(1));
        assertEquals(2, headers.size(), headers::toString);
        assertTrue(Pattern.compile("llmperf4j: pre-run check: http://127\\.0\\.0\\.1:\\d+/v1/chat/completions "
                + "answered with its status and headers but no event yet after 1 s; waiting up to 2 s "
                + "\\(--timeout\\)").matcher(headers.get(0)).matches(), headers::toString);
    }

    /** The check's one line against a server that answers 200 (and, with {@code tokens}, 2 tokens) and stalls. */
    private static String gaveUpLine(boolean tokens) throws Exception {
        List<String> lines = lines(tokens, Duration.ofSeconds(5));
        assertEquals(1, lines.size(), lines::toString);
        return lines.get(0);
    }

    /**
     * The check's lines against that server: with a run --timeout of 1 s when {@code noticeAfter} is longer (no
     * waiting line), else 2 s.
     */
    private static List<String> lines(boolean tokens, Duration noticeAfter) throws Exception {
        CountDownLatch over = new CountDownLatch(1);
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        server.setExecutor(threads);
        server.createContext("/v1/chat/completions", exchange -> stall(exchange, tokens, over));
        server.start();
        try {
            ClientConfig config = ClientConfig.builder(CHAT.endpoint("http://127.0.0.1:"
                            + server.getAddress().getPort() + "/v1"), "m").apiKey(Secret.of("k")).maxConnections(1)
                    .connectTimeout(Duration.ofSeconds(5)).idleTimeout(Duration.ofSeconds(10)).build();
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
            Duration runTimeout = Duration.ofSeconds(noticeAfter.toSeconds() < 5 ? 2 : 1);
            assertDoesNotThrow(() -> Preflight.checkRequest(config, CHAT, "k", "OPENAI_API_KEY", runTimeout, err,
                    noticeAfter));
            return bytes.toString(StandardCharsets.UTF_8).lines().toList();
        } finally {
            over.countDown();
            server.stop(0);
            threads.shutdownNow();
        }
    }

    private static void stall(HttpExchange exchange, boolean tokens, CountDownLatch over) throws IOException {
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            if (tokens) {
                write(out, chunk("{\"role\":\"assistant\",\"content\":\"\"}"));
                write(out, chunk("{\"content\":\"Hello\"}"));
                write(out, chunk("{\"content\":\" there\"}"));
            }
            over.await(30, TimeUnit.SECONDS); // silent until the test is over
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the client closed the connection (the check's cancel)
        }
    }

    private static String chunk(String delta) {
        return "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
                + "\"choices\":[{\"index\":0,\"delta\":" + delta + ",\"finish_reason\":null}]}\n\n";
    }

    private static void write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}

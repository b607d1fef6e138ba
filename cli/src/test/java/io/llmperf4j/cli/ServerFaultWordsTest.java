package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a server does wrong and the run must say, the real command against a server on 127.0.0.1 that sends exactly
 * the QA fault server's bytes (s47): a chunk without {@code data:}, an error body with control characters, 429s with
 * Retry-After, far more output than max_tokens under a usage that says otherwise. The pre-run check's one-token
 * request is answered cleanly.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServerFaultWordsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The QA fault server's nasty500 body: quotes, LF, CR LF, ANSI colour escapes and a NUL. */
    private static final String NASTY = "line one, with \"quotes\"\nline two\r\n\u001b[31mRED\u001b[0m and NUL\u0000 end";
    private static final String RATE_LIMITED = "{\"error\":{\"message\":\"Rate limit exceeded\",\"type\":\"rate_limit\"}}";

    /** How the server answers a measured request ({@code n} counts them from 1). */
    @FunctionalInterface
    private interface Answer {
        void write(HttpExchange exchange, int n) throws IOException;
    }

    @Test
    void linesWithoutDataAreCountedAndWarnedWithAnExample(@TempDir Path dir) throws Exception {
        CliRun run = run(dir, (exchange, n) -> stream(exchange, 10, 20, out -> {
            // QA (nodata): a word alone and a chunk's JSON without "data: ", which the standard ignores
            out.write("hello\n".getBytes(StandardCharsets.UTF_8));
            out.write((chunk("DROPPED ") + "\n\n").getBytes(StandardCharsets.UTF_8));
        }));
        assertEquals(0, run.exitCode(), run::toString);
        String expected = "4 of 4 requests had stream lines without data: (8 lines in all, e.g. hello): skipped, as "
                + "the SSE standard ignores unknown fields, so any output they carried is missing from "
                + "generated_text and the client's token counts";
        assertTrue(run.out().contains("[STREAM_LINES_IGNORED] " + expected), run::toString);
        assertTrue(RunFolder.warning(RunFolder.summary(dir), "STREAM_LINES_IGNORED").startsWith(expected), run::toString);
        for (CSVRecord row : RunFolder.csv(dir)) {
            assertEquals("", row.get("error_kind"), row::toString); // ignoring them is right: the requests are fine
            // the CSV has them as the journal does, so the warning's counts and example are there without it
            assertEquals("2", row.get("ignored_stream_lines"), row::toString);
            assertEquals("hello", row.get("ignored_stream_line"), row::toString);
        }
        for (String line : Files.readAllLines(dir.resolve("requests.jsonl"))) {
            String text = JSON.readTree(line).get("generated_text").asText();
            assertEquals("alpha ".repeat(10), text);
            JsonNode tags = JSON.readTree(line).get("tags"); // each request's own count and first line
            assertEquals(2, tags.path("ignored_stream_lines").asInt(-1), line);
            assertEquals("hello", tags.path("ignored_stream_line").asText(), line);
            assertFalse(tags.has("rest_of"), line); // no session's rest: not written
        }
    }

    @Test
    void anErrorBodyIsOnePrintableLineInTheCsvAndWholeInTheJson(@TempDir Path dir) throws Exception {
        CliRun run = run(dir, (exchange, n) -> respond(exchange, 500, "text/plain", NASTY, null));
        assertEquals(4, run.exitCode(), run::toString); // every request failed
        byte[] bytes = Files.readAllBytes(RunFolder.file(dir, "_requests.csv"));
        String file = new String(bytes, StandardCharsets.UTF_8);
        assertFalse(file.contains("\u0000") || file.contains("\u001b"), file);
        // RFC 4180 ends records in CR LF; no other line end is left inside a field
        String withoutRecordEnds = file.replace("\r\n", "");
        assertFalse(withoutRecordEnds.contains("\n") || withoutRecordEnds.contains("\r"), file);
        assertEquals(5, file.split("\r\n").length, file); // the header and 4 rows, one line each
        List<CSVRecord> rows = RunFolder.csv(dir);
        for (CSVRecord row : rows) {
            assertEquals("line one, with \"quotes\"\\nline two\\r\\n\\x1b[31mRED\\x1b[0m and NUL\\x00 end",
                    row.get("error_msg"), row::toString);
            assertEquals("0", row.get("output_tokens_client"), row::toString); // no text, no BOS counted
        }
        // llmperf's JSON keeps the body whole: JSON's escapes already make it safe
        JsonNode responses = JSON.readTree(RunFolder.file(dir, "_individual_responses.json").toFile());
        assertEquals(4, responses.size());
        for (JsonNode r : responses) {
            assertEquals(NASTY, r.get("error_msg").asText());
            assertEquals(0, r.get("number_output_tokens").asInt(), r::toString);
            assertEquals(40, r.get("number_total_tokens").asInt(), r::toString);
        }
    }

    @Test
    void a429sRetryAfterRangeAndThatNoneWasRetriedAreOnTheConsole(@TempDir Path dir) throws Exception {
        CliRun run = run(dir, (exchange, n) -> respond(exchange, 429, "application/json", RATE_LIMITED,
                n % 2 == 0 ? "3" : "7"));
        assertEquals(4, run.exitCode(), run::toString);
        String words = "4x 429 Rate limit exceeded [Retry-After: 3-7 s; not retried]";
        assertTrue(run.out().contains("[REQUESTS_FAILED] 4 of 4 requests failed (4 HTTP_STATUS: " + words + "): "),
                run::toString);
        assertTrue(run.err().contains("\n    " + words + "\n"), run::toString); // the failed run's lines
        for (CSVRecord row : RunFolder.csv(dir)) { // the files keep llmperf's error_msg, header included
            assertTrue(row.get("error_msg").equals(RATE_LIMITED + " [Retry-After: 3]")
                    || row.get("error_msg").equals(RATE_LIMITED + " [Retry-After: 7]"), row::toString);
        }
    }

    @Test
    void outputFarBeyondMaxTokensUnderAUsageWithinItIsWarnedWithItsCounts(@TempDir Path dir) throws Exception {
        // QA (slow_huge): the server streams far more than max_tokens 20 and its usage says 20
        CliRun run = run(dir, (exchange, n) -> stream(exchange, 80, 20, null));
        assertEquals(0, run.exitCode(), run::toString);
        int most = 0;
        for (CSVRecord row : RunFolder.csv(dir)) {
            assertEquals("20", row.get("output_tokens_server"), row::toString);
            most = Math.max(most, Integer.parseInt(row.get("output_tokens_client")) - 1); // llmperf's BOS
        }
        assertTrue(most > 40, "the client's count: " + most);
        String expected = "4 of 4 requests with a client count streamed far more output than their max_tokens (the "
                + "most: " + most + " tokens by the client tokenizer for max_tokens 20, its usage said 20; the "
                + "server's usage within max_tokens for 4 of them, absent for 0): the server ignored max_tokens or "
                + "its usage is wrong. A client tokenizer that is not the model's does not explain more than 2x.";
        assertTrue(run.out().contains("[OUTPUT_BEYOND_MAX_TOKENS] " + expected), run::toString);
        assertTrue(RunFolder.warning(RunFolder.summary(dir), "OUTPUT_BEYOND_MAX_TOKENS").startsWith(expected),
                run::toString);
        for (String line : Files.readAllLines(dir.resolve("requests.jsonl"))) { // a clean stream: no such tags
            JsonNode tags = JSON.readTree(line).get("tags");
            for (String unset : List.of("rest_of", "ignored_stream_lines", "ignored_stream_line")) {
                assertFalse(tags.has(unset), unset + " in " + line);
            }
        }
    }

    @Test
    void anErrorEventsWordsArePrintableInTheFailedRunsLines(@TempDir Path dir) throws Exception {
        CliRun run = run(dir, (exchange, n) -> errorEvent(exchange, NASTY));
        assertEquals(4, run.exitCode(), run::toString); // every request failed
        assertTrue(run.err().contains("  4x 500 line one, with \"quotes\" line two \\x1b[31mRED\\x1b[0m and "
                + "NUL\\x00 end"), run::toString);
        assertNoControls(run);
    }

    /**
     * A 429 sent as an error event under a 200 (a gateway that rate-limits after the headers) is as unretried as an
     * HTTP 429: the failed run's lines and REQUESTS_FAILED say so as they say it of the status. Before, the event's
     * line read "4x 429 Rate limit exceeded" alone.
     */
    @Test
    void a429ErrorEventIsSaidNotRetriedAsAnHttp429Is(@TempDir Path dir) throws Exception {
        CliRun run = run(dir, (exchange, n) -> errorEvent(exchange, "Rate limit exceeded", 429));
        assertEquals(4, run.exitCode(), run::toString); // every request failed
        String words = "4x 429 Rate limit exceeded [not retried]";
        assertTrue(run.err().contains("\n    " + words + "\n"), run::toString); // the failed run's lines
        assertTrue(run.out().contains("[REQUESTS_FAILED] 4 of 4 requests failed (4 ERROR_IN_STREAM: " + words + ")"),
                run::toString);
        for (CSVRecord row : RunFolder.csv(dir)) { // llmperf's error_msg stays the server's words
            assertEquals("Rate limit exceeded", row.get("error_msg"), row::toString);
        }
    }

    @Test
    void anErrorEventAnsweringThePreRunCheckIsPrintable(@TempDir Path dir) throws Exception {
        CliRun run = run(dir, (exchange, n) -> errorEvent(exchange, NASTY), (exchange, n) -> errorEvent(exchange,
                NASTY));
        assertTrue(run.exitCode() != 0, run::toString);
        assertTrue(run.err().contains("line two \\x1b[31mRED\\x1b[0m and NUL\\x00 end"), run::toString);
        assertNoControls(run);
    }

    /** Neither stream has the server's ESC or NUL. */
    private static void assertNoControls(CliRun run) {
        for (String text : List.of(run.out(), run.err())) {
            assertFalse(text.contains("\u001b") || text.contains("\u0000"), run::toString);
        }
    }

    /** 200 with an event stream whose only event is an error object saying {@code message} (code 500). */
    private static void errorEvent(HttpExchange exchange, String message) throws IOException {
        errorEvent(exchange, message, 500);
    }

    /** The same with the error's {@code code}. */
    private static void errorEvent(HttpExchange exchange, String message, int code) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        com.fasterxml.jackson.databind.node.ObjectNode event = JSON.createObjectNode();
        event.putObject("error").put("message", message).put("code", code);
        SseEvents.write(exchange.getResponseBody(), event.toString());
    }

    /** A 4-request run (concurrency 2, max_tokens 20) against a server answering measured requests with {@code answer}. */
    private static CliRun run(Path dir, Answer answer) throws IOException {
        return run(dir, (exchange, n) -> stream(exchange, 1, 1, null), answer);
    }

    /** The same, the pre-run check's one-token request answered with {@code preRun}. */
    private static CliRun run(Path dir, Answer preRun, Answer answer) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        ExecutorService threads = Executors.newFixedThreadPool(4);
        AtomicInteger measured = new AtomicInteger();
        server.setExecutor(threads);
        server.createContext("/v1/chat/completions", exchange -> {
            try (exchange) {
                JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
                if (body.path("max_tokens").asInt() <= 1) {
                    preRun.write(exchange, 0); // the pre-run check
                } else {
                    answer.write(exchange, measured.incrementAndGet());
                }
            }
        });
        server.start();
        try {
            return CliRun.of(Map.of("OPENAI_API_BASE", "http://127.0.0.1:" + server.getAddress().getPort() + "/v1",
                            "OPENAI_API_KEY", "k"), "token-benchmark", "--model", "m",
                    "--mean-input-tokens", "40", "--stddev-input-tokens", "0", "--mean-output-tokens", "20",
                    "--stddev-output-tokens", "0", "--no-client-warmup", "--no-server-metrics",
                    "--num-concurrent-requests", "2", "--max-num-completed-requests", "4",
                    "--results-dir", dir.toString());
        } finally {
            server.stop(0);
            threads.shutdownNow();
        }
    }

    @FunctionalInterface
    private interface Extra {
        void write(OutputStream out) throws IOException;
    }

    /**
     * 200 with an event stream: {@code words} content chunks of "alpha ", {@code extra}'s bytes after the fifth (or
     * the first), the finish chunk, usage saying {@code usageTokens}, and [DONE].
     */
    private static void stream(HttpExchange exchange, int words, int usageTokens, Extra extra) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        OutputStream out = exchange.getResponseBody();
        for (int i = 0; i < words; i++) {
            if (extra != null && i == Math.min(5, words - 1)) extra.write(out);
            SseEvents.write(out, chunk("alpha "));
        }
        SseEvents.write(out, SseEvents.chatChunk("{}", "\"length\""));
        SseEvents.write(out, "{\"id\":\"chatcmpl-test\",\"object\":\"chat.completion.chunk\",\"choices\":[],"
                + "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":" + usageTokens + ",\"total_tokens\":"
                + (10 + usageTokens) + "}}");
        SseEvents.write(out, "[DONE]");
    }

    private static String chunk(String content) {
        return SseEvents.chatChunk("{\"content\":\"" + content + "\"}", null);
    }

    private static void respond(HttpExchange exchange, int status, String type, String body, String retryAfter)
            throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        if (retryAfter != null) exchange.getResponseHeaders().set("Retry-After", retryAfter);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }
}

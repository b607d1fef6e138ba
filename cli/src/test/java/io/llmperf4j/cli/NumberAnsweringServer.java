package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.datasets.NumberWords;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongFunction;

/**
 * A tiny OpenAI-compatible chat completions server on 127.0.0.1 for the correctness test: it reads the number back
 * from the prompt's words ({@link NumberWords#parse}) and answers as {@code reply} decides for that number, streaming
 * SSE chunks as OpenAI does (a role chunk, the content chunks, a finish chunk, {@code [DONE]}). Every request body is
 * kept for the test to inspect.
 */
final class NumberAnsweringServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PREFIX = "Convert the following sequence of words into a number: ";
    private static final String SUFFIX = ".\nPrint the number first.";

    /** What to answer for a number. */
    sealed interface Reply {
    }

    /** 200 with an event stream carrying these content pieces. */
    record Stream(List<String> contents) implements Reply {
    }

    /** A non-200 status with a plain body. */
    record Status(int code, String body) implements Reply {
    }

    /** 200 with an event stream whose first event is an error object. */
    record StreamError(int code, String message) implements Reply {
    }

    static Reply say(String... contents) {
        return new Stream(List.of(contents));
    }

    final List<JsonNode> bodies = new CopyOnWriteArrayList<>();
    final List<Long> numbers = new CopyOnWriteArrayList<>();
    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(16);
    private final LongFunction<Reply> reply;

    NumberAnsweringServer(LongFunction<Reply> reply) throws IOException {
        this.reply = reply;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.createContext("/v1/chat/completions", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
            bodies.add(body);
            String prompt = body.path("messages").path(1).path("content").asText();
            if (!prompt.startsWith(PREFIX) || !prompt.endsWith(SUFFIX)) {
                send(exchange, new Status(400, "not a correctness prompt"));
                return;
            }
            long n = NumberWords.parse(prompt.substring(PREFIX.length(), prompt.length() - SUFFIX.length()));
            numbers.add(n);
            send(exchange, reply.apply(n));
        }
    }

    private static void send(HttpExchange exchange, Reply answer) throws IOException {
        if (answer instanceof Status status) {
            byte[] bytes = status.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain");
            exchange.sendResponseHeaders(status.code(), bytes.length);
            exchange.getResponseBody().write(bytes);
            return;
        }
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        OutputStream out = exchange.getResponseBody();
        if (answer instanceof StreamError error) {
            ObjectNode event = JSON.createObjectNode();
            event.putObject("error").put("message", error.message()).put("code", error.code());
            SseEvents.write(out, event.toString());
        } else if (answer instanceof Stream stream) {
            SseEvents.write(out, SseEvents.chatChunk("{\"role\":\"assistant\",\"content\":\"\"}", null));
            for (String content : stream.contents()) {
                SseEvents.write(out, SseEvents.chatChunk(
                        JSON.createObjectNode().put("content", content).toString(), null));
            }
            SseEvents.write(out, SseEvents.chatChunk("{}", "\"stop\""));
        }
        SseEvents.write(out, "[DONE]");
    }



    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}

package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A server on 127.0.0.1 that keeps every request body as it arrived, in arrival order, and answers a two-word
 * stream: OpenAI chat chunks on {@code /v1/chat/completions}, Anthropic events on {@code /v1/messages}.
 */
final class BodyRecordingServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The request bodies, in arrival order. */
    final List<JsonNode> bodies = Collections.synchronizedList(new ArrayList<>());
    /** When each of {@link #bodies} arrived (this JVM's monotonic clock); by identity, so clearing bodies is safe. */
    private final Map<JsonNode, Long> arrivedNanos = Collections.synchronizedMap(new IdentityHashMap<>());
    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(4);

    BodyRecordingServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/v1/chat/completions", this::openAi);
        server.createContext("/v1/messages", this::anthropic);
        server.setExecutor(executor);
        server.start();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    /** The run's bodies so far, a copy: without the pre-run check's one-token request ("Say hello."). */
    List<JsonNode> bodies() {
        synchronized (bodies) {
            return bodies.stream().filter(b -> !isPreflight(b)).toList();
        }
    }

    /** The prompt of each of {@code bodies}: its last message's content. */
    static List<String> prompts(List<JsonNode> bodies) {
        List<String> prompts = new ArrayList<>();
        for (JsonNode body : bodies) {
            JsonNode messages = body.get("messages");
            prompts.add(messages.get(messages.size() - 1).get("content").asText());
        }
        return prompts;
    }

    /** When {@code body}, one of {@link #bodies}, arrived: {@link System#nanoTime()} as its handling began. */
    long arrivedNanos(JsonNode body) {
        return arrivedNanos.get(body);
    }

    private static boolean isPreflight(JsonNode body) {
        JsonNode messages = body.path("messages");
        JsonNode last = messages.path(messages.size() - 1).path("content");
        return body.path("max_tokens").asInt() == 1 && last.isTextual() && last.asText().equals("Say hello.");
    }

    private void openAi(HttpExchange exchange) throws IOException {
        long now = System.nanoTime();
        try (exchange) {
            JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
            arrivedNanos.put(body, now);
            bodies.add(body);
            OutputStream out = stream(exchange);
            for (String delta : List.of("{\"role\":\"assistant\",\"content\":\"\"}", "{\"content\":\"seen\"}",
                    "{\"content\":\" it\"}")) {
                SseEvents.write(out, "{\"id\":\"chatcmpl-rec\",\"object\":\"chat.completion.chunk\",\"created\":1,"
                        + "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":" + delta
                        + ",\"finish_reason\":null}]}");
            }
            SseEvents.write(out, "{\"id\":\"chatcmpl-rec\",\"object\":\"chat.completion.chunk\",\"created\":1,"
                    + "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}");
            SseEvents.write(out, "[DONE]");
        }
    }

    private void anthropic(HttpExchange exchange) throws IOException {
        try (exchange) {
            bodies.add(JSON.readTree(exchange.getRequestBody().readAllBytes()));
            OutputStream out = stream(exchange);
            SseEvents.write(out, "message_start",
                    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_rec\",\"type\":"
                    + "\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,"
                    + "\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}");
            SseEvents.write(out, "content_block_start",
                    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
                    + "{\"type\":\"text\",\"text\":\"\"}}");
            for (String text : List.of("seen", " it")) {
                SseEvents.write(out, "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
                        + "{\"type\":\"text_delta\",\"text\":\"" + text + "\"}}");
            }
            SseEvents.write(out, "content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}");
            SseEvents.write(out, "message_delta",
                    "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
                    + "\"usage\":{\"output_tokens\":2}}");
            SseEvents.write(out, "message_stop", "{\"type\":\"message_stop\"}");
        }
    }

    private static OutputStream stream(HttpExchange exchange) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        return exchange.getResponseBody();
    }


    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}

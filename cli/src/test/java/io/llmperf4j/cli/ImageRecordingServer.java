package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.datasets.images.ImageLibrary;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A chat completions server on 127.0.0.1 that keeps, per prompt, the SHA-256 of each image's bytes as they arrived
 * (decoded from the data: URL), and every image part's {@code detail} in order, and answers a two-word stream.
 */
final class ImageRecordingServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What {@link #details} holds for an image part without {@code detail}. */
    static final String NO_DETAIL = "(none)";

    /** Prompt text -> SHA-256 of its images, in order. */
    final Map<String, List<String>> imagesByPrompt = new ConcurrentHashMap<>();
    /** Every image part's {@code image_url.detail} (or {@link #NO_DETAIL}), in the order the requests came. */
    final List<String> details = new CopyOnWriteArrayList<>();
    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(4);

    ImageRecordingServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
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
            String prompt = null;
            List<String> digests = new ArrayList<>();
            for (JsonNode part : body.path("messages").path(1).path("content")) {
                if (part.path("type").asText().equals("text")) prompt = part.path("text").asText();
                String url = part.path("image_url").path("url").asText("");
                if (url.startsWith("data:")) {
                    byte[] bytes = Base64.getDecoder().decode(url.substring(url.indexOf(',') + 1));
                    digests.add(ImageLibrary.sha256Hex(bytes));
                }
            }
            if (prompt != null) imagesByPrompt.put(prompt, digests);
            for (JsonNode message : body.path("messages")) {
                for (JsonNode part : message.path("content")) {
                    if (!part.path("type").asText().equals("image_url")) continue;
                    JsonNode detail = part.path("image_url").get("detail");
                    details.add(detail == null ? NO_DETAIL : detail.asText());
                }
            }
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            for (String delta : List.of("{\"role\":\"assistant\",\"content\":\"\"}", "{\"content\":\"seen\"}",
                    "{\"content\":\" it\"}")) {
                SseEvents.write(out,
                        "{\"id\":\"chatcmpl-img\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
                        + "\"choices\":[{\"index\":0,\"delta\":" + delta + ",\"finish_reason\":null}]}");
            }
            SseEvents.write(out,
                    "{\"id\":\"chatcmpl-img\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
                    + "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}");
            SseEvents.write(out, "[DONE]");
        }
    }


    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}

package io.llmperf4j.llama;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** A minimal HTTP client for the tests: JSON in, JSON or SSE events (with arrival times) out. */
final class SseClient {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** One SSE event's data ("[DONE]" stays a text node), its raw text and when it arrived. */
    record Event(JsonNode data, String raw, long nanos) {
        boolean isDone() {
            return data.isTextual() && data.textValue().equals("[DONE]");
        }
    }

    record Response(int status, JsonNode body) {
    }

    private SseClient() {
    }

    static Response post(String url, String body) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(request(url, body), HttpResponse.BodyHandlers.ofString());
        return new Response(response.statusCode(), JSON.readTree(response.body()));
    }

    static Response get(String url) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        return new Response(response.statusCode(), JSON.readTree(response.body()));
    }

    static List<Event> stream(String url, String body) throws IOException, InterruptedException {
        HttpResponse<Stream<String>> response = HTTP.send(request(url, body), HttpResponse.BodyHandlers.ofLines());
        if (response.statusCode() != 200) throw new IOException("HTTP " + response.statusCode());
        List<Event> events = new ArrayList<>();
        try (Stream<String> lines = response.body()) {
            for (String line : (Iterable<String>) lines::iterator) {
                if (!line.startsWith("data: ")) continue;
                String data = line.substring(6);
                events.add(new Event(data.equals("[DONE]") ? JSON.getNodeFactory().textNode(data) : JSON.readTree(data),
                        data, System.nanoTime()));
            }
        }
        return events;
    }

    private static HttpRequest request(String url, String body) {
        return HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }
}

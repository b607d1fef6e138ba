package io.llmperf4j.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;

/** A JDK HttpClient speaking to a SimulatedServer, recording when each SSE line arrived. */
final class TestClient {

    static final ObjectMapper JSON = new ObjectMapper();
    /** Only a safety net against a hung test, never a timing assertion. */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(20);

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final String baseUrl;
    private final String apiKey;

    TestClient(SimulatedServer server) {
        this(server.baseUrl(), null);
    }

    TestClient(String baseUrl, String apiKey) {
        this.baseUrl = baseUrl;
        this.apiKey = apiKey;
    }

    /** One SSE data line and System.nanoTime() when the client read it. */
    record Event(long arrivalNanos, String data) {
        boolean isDone() {
            return data.equals("[DONE]");
        }

        JsonNode json() {
            try {
                return JSON.readTree(data);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** A streamed response: status, headers' content type, events in order, and when the request was sent. */
    record Streamed(int status, String contentType, long sentNanos, List<Event> events, String errorBody) {
        List<JsonNode> jsonEvents() {
            return events.stream().filter(e -> !e.isDone()).map(Event::json).toList();
        }
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(builder(path).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Gets with extra headers given as name, value, name, value, ... */
    HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder request = builder(path).GET();
        if (headers.length > 0) request.headers(headers);
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
        return http.send(builder(path).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Posts with extra headers given as name, value, name, value, ... */
    HttpResponse<String> post(String path, String body, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder request = builder(path).POST(HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) request.headers(headers);
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** One raw response line (SSE "event:" and "data:" lines, blank lines) and when the client read it. */
    record Line(long arrivalNanos, String text) {
    }

    /** A response read line by line: status, headers, every line with its arrival time, when it was sent. */
    record Lines(int status, java.net.http.HttpHeaders headers, long sentNanos, List<Line> lines) {
        List<String> texts() {
            return lines.stream().map(Line::text).toList();
        }
    }

    /** Posts with extra headers and reads the body line by line as it arrives. */
    Lines lines(String path, String body, String... headers) throws IOException, InterruptedException {
        long sentNanos = System.nanoTime();
        HttpRequest.Builder request = builder(path).POST(HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) request.headers(headers);
        HttpResponse<Stream<String>> response = http.send(request.build(), HttpResponse.BodyHandlers.ofLines());
        List<Line> lines = new ArrayList<>();
        try (Stream<String> bodyLines = response.body()) {
            Iterator<String> it = bodyLines.iterator();
            while (it.hasNext()) {
                String line = it.next();
                lines.add(new Line(System.nanoTime(), line));
            }
        }
        return new Lines(response.statusCode(), response.headers(), sentNanos, lines);
    }

    /** Like {@link #stream(String, String)}, with extra headers. */
    Streamed stream(String path, String body, String... headers) throws IOException, InterruptedException {
        Lines lines = lines(path, body, headers);
        List<Event> events = new ArrayList<>();
        StringBuilder other = new StringBuilder();
        for (Line line : lines.lines()) {
            if (line.text().startsWith("data: ")) {
                events.add(new Event(line.arrivalNanos(), line.text().substring("data: ".length())));
            } else if (!line.text().isEmpty()) {
                other.append(line.text());
            }
        }
        return new Streamed(lines.status(), lines.headers().firstValue("content-type").orElse(""),
                lines.sentNanos(), events, other.toString());
    }

    JsonNode postJson(String path, String body) throws IOException, InterruptedException {
        HttpResponse<String> response = post(path, body);
        if (response.statusCode() != 200) {
            throw new AssertionError("HTTP " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    /** Posts and reads the SSE body line by line as it arrives. */
    Streamed stream(String path, String body) throws IOException, InterruptedException {
        long sentNanos = System.nanoTime();
        HttpResponse<Stream<String>> response = http.send(
                builder(path).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofLines());
        String contentType = response.headers().firstValue("content-type").orElse("");
        List<Event> events = new ArrayList<>();
        StringBuilder other = new StringBuilder();
        try (Stream<String> lines = response.body()) {
            Iterator<String> it = lines.iterator();
            while (it.hasNext()) {
                String line = it.next();
                long nowNanos = System.nanoTime();
                if (line.startsWith("data: ")) {
                    events.add(new Event(nowNanos, line.substring("data: ".length())));
                } else if (!line.isEmpty()) {
                    other.append(line);
                }
            }
        }
        return new Streamed(response.statusCode(), contentType, sentNanos, events, other.toString());
    }

    private HttpRequest.Builder builder(String path) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json");
        if (apiKey != null) builder.header("Authorization", "Bearer " + apiKey);
        return builder;
    }

    /** A chat body: {"model":..,"messages":[system "", user prompt],"stream":..,"max_tokens":..} plus extra. */
    static String chatBody(String prompt, boolean stream, int maxTokens, String extraFields) {
        return "{\"model\":\"test-model\",\"messages\":[{\"role\":\"system\",\"content\":\"\"},"
                + "{\"role\":\"user\",\"content\":" + quote(prompt) + "}],\"stream\":" + stream
                + ",\"max_tokens\":" + maxTokens + (extraFields.isEmpty() ? "" : "," + extraFields) + "}";
    }

    static String completionBody(String prompt, boolean stream, int maxTokens, String extraFields) {
        return "{\"model\":\"test-model\",\"prompt\":" + quote(prompt) + ",\"stream\":" + stream
                + ",\"max_tokens\":" + maxTokens + (extraFields.isEmpty() ? "" : "," + extraFields) + "}";
    }

    static String quote(String text) {
        try {
            return JSON.writeValueAsString(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.llmperf4j.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * A small server on 127.0.0.1 in front of the simulator's true {@code /metrics}: it serves them with the generation
 * and prompt token counters scaled (a server whose tokenizer counts otherwise than the client's, or that counts
 * something else: a scaled counter is still a counter), and, once the simulator has finished {@code failAfter}
 * requests more than at the first scrape, answers 404 (a scrape at the run's end that fails) or, made by
 * {@link #resetting}, serves its counters from 0 there (a server restarted mid-run).
 */
final class MetricsProxy implements AutoCloseable {
    private final HttpServer http;
    private final HttpClient client = HttpClient.newHttpClient();
    private final String origin;
    private final double generationScale;
    private final double promptScale;
    private final long failAfter;
    /** At the switch ({@code failAfter}) its counters restart from 0 instead of a 404. */
    private final boolean resetAtSwitch;
    /** Each counter's value at the switch, once reset. */
    private Map<String, Double> resetAt;
    /** The simulator's finished requests at the first scrape: it serves every test of a class. */
    private long finishedBefore = -1;

    MetricsProxy(String origin, double generationScale, double promptScale, long failAfter) throws IOException {
        this(origin, generationScale, promptScale, failAfter, false);
    }

    private MetricsProxy(String origin, double generationScale, double promptScale, long failAfter,
                         boolean resetAtSwitch) throws IOException {
        this.origin = origin;
        this.generationScale = generationScale;
        this.promptScale = promptScale;
        this.failAfter = failAfter;
        this.resetAtSwitch = resetAtSwitch;
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/metrics", this::handle);
        http.start();
    }

    /** The simulator's counters scaled, never failing. */
    static MetricsProxy scaling(String origin, double generationScale, double promptScale) throws IOException {
        return new MetricsProxy(origin, generationScale, promptScale, Long.MAX_VALUE);
    }

    /** The simulator's counters, which restart from 0 once it has finished {@code after} requests more. */
    static MetricsProxy resetting(String origin, long after) throws IOException {
        return new MetricsProxy(origin, 1, 1, after, true);
    }

    String url() {
        return "http://127.0.0.1:" + http.getAddress().getPort() + "/metrics";
    }

    private synchronized void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String text = client.send(HttpRequest.newBuilder(URI.create(origin + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            long finished = (long) sum(text, "vllm:request_success_total");
            if (finishedBefore < 0) finishedBefore = finished;
            if (finished - finishedBefore >= failAfter) {
                if (!resetAtSwitch) {
                    exchange.sendResponseHeaders(404, -1);
                    return;
                }
                text = resetCounters(text);
            }
            byte[] bytes = scaled(text).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private String scaled(String text) {
        StringBuilder out = new StringBuilder();
        for (String line : text.split("\n")) {
            double scale = line.startsWith("vllm:generation_tokens_total") ? generationScale
                    : line.startsWith("vllm:prompt_tokens_total") ? promptScale : 1;
            int space = line.lastIndexOf(' ');
            if (scale == 1 || space < 0) {
                out.append(line).append('\n');
                continue;
            }
            double v = Double.parseDouble(line.substring(space + 1));
            out.append(line, 0, space + 1).append(Math.floor(v * scale)).append('\n');
        }
        return out.toString();
    }

    /** The counters and histograms as a server restarted at the switch would serve them: from 0 there. */
    private String resetCounters(String text) {
        boolean first = resetAt == null;
        if (first) resetAt = new HashMap<>();
        StringBuilder out = new StringBuilder();
        for (String line : text.split("\n")) {
            int space = line.lastIndexOf(' ');
            String key = space < 0 ? "" : line.substring(0, space);
            boolean counter = !line.startsWith("#") && space > 0 && (key.contains("_total") || key.contains("_count")
                    || key.contains("_sum") || key.contains("_bucket"));
            if (!counter) {
                out.append(line).append('\n');
                continue;
            }
            double v = Double.parseDouble(line.substring(space + 1));
            if (first) resetAt.put(key, v);
            out.append(key).append(' ').append(v - resetAt.getOrDefault(key, 0.0)).append('\n');
        }
        return out.toString();
    }

    private static double sum(String text, String name) {
        double n = 0;
        for (String line : text.split("\n")) {
            if (line.startsWith(name)) n += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
        return n;
    }

    @Override
    public void close() {
        http.stop(0);
    }
}

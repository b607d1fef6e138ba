package io.llmperf4j.servermetrics.scrape;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/** A real HTTP server on 127.0.0.1 serving /metrics as told: body, status, content type, or a stall. */
final class TestMetricsServer implements AutoCloseable {

    enum Stall { NONE, BEFORE_HEADERS, AFTER_HEADERS }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final CountDownLatch release = new CountDownLatch(1);
    final List<String> authorizations = new CopyOnWriteArrayList<>();
    final List<String> accepts = new CopyOnWriteArrayList<>();
    /** Each request's headers beside Host, names lower-cased. */
    final List<Map<String, String>> headers = new CopyOnWriteArrayList<>();
    /** When set, a request that lacks one of these headers (name lower-cased, value exact) gets {@link #refusal}. */
    volatile Map<String, String> required;
    volatile int refusal = 401;
    volatile int status = 200;
    volatile String contentType = "text/plain; version=0.0.4; charset=utf-8";
    volatile String body = "";
    volatile Stall stall = Stall.NONE;
    /** When set, a request for exactly {@link #redirectPath} gets 307 to this. */
    volatile String redirectLocation;
    volatile String redirectPath = "/metrics";

    TestMetricsServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    URI url(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    private void handle(HttpExchange exchange) throws IOException {
        authorizations.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
        accepts.add(String.valueOf(exchange.getRequestHeaders().getFirst("Accept")));
        Map<String, String> got = new TreeMap<>();
        exchange.getRequestHeaders().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("Host")) got.put(name.toLowerCase(Locale.ROOT), String.join(",", values));
        });
        headers.add(got);
        try (exchange) {
            Map<String, String> needed = required;
            if (needed != null && !needed.entrySet().stream().allMatch(e -> e.getValue().equals(got.get(e.getKey())))) {
                exchange.sendResponseHeaders(refusal, -1);
                return;
            }
            if (redirectLocation != null && exchange.getRequestURI().getPath().equals(redirectPath)) {
                exchange.getResponseHeaders().set("Location", redirectLocation);
                exchange.sendResponseHeaders(307, -1);
                return;
            }
            if (stall == Stall.BEFORE_HEADERS) await();
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            if (contentType != null) exchange.getResponseHeaders().set("Content-Type", contentType);
            if (stall == Stall.AFTER_HEADERS) {
                exchange.sendResponseHeaders(status, 0);
                OutputStream out = exchange.getResponseBody();
                out.write(bytes, 0, Math.min(10, bytes.length));
                out.flush();
                await();
                return;
            }
            exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
            if (bytes.length > 0) exchange.getResponseBody().write(bytes);
        }
    }

    private void await() {
        try {
            release.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        release.countDown();
        server.stop(0);
        executor.shutdownNow();
    }
}

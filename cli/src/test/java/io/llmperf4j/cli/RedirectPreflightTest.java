package io.llmperf4j.cli;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A gateway on 127.0.0.1 that lists its model but redirects every API request (307 or 308, a key in the Location's
 * query): the run's client follows no redirect, so the pre-run check stops the run naming where the redirect points
 * (every request would fail "HTTP 308 with an empty body" otherwise), and doctor fails its request check the same way.
 */
class RedirectPreflightTest {
    private static final String LOCATION_KEY = "sk-location-secret-0123456789";

    private static HttpServer redirecting(int status, AtomicInteger posts) throws Exception {
        return redirecting(status, posts, false);
    }

    /** @param modelsToo whether GET /models is redirected as well (a gateway moved as a whole) */
    private static HttpServer redirecting(int status, AtomicInteger posts, boolean modelsToo) throws Exception {
        HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        int port = http.getAddress().getPort();
        http.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            if (exchange.getRequestURI().getPath().endsWith("/models") && !modelsToo) {
                byte[] body = "{\"object\":\"list\",\"data\":[{\"id\":\"m\",\"object\":\"model\"}]}"
                        .getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            } else {
                posts.incrementAndGet();
                String path = exchange.getRequestURI().getPath().endsWith("/models") ? "/served/v1/models"
                        : "/served/v1/chat/completions";
                exchange.getResponseHeaders().set("Location", "http://127.0.0.1:" + port + path + "?api_key="
                        + LOCATION_KEY);
                exchange.sendResponseHeaders(status, -1);
            }
            exchange.close();
        });
        http.start();
        return http;
    }

    @ParameterizedTest
    @ValueSource(ints = {307, 308})
    void theRunStopsBeforeItStartsNamingTheStatusAndTheRedactedLocation(int status, @TempDir Path dir)
            throws Exception {
        AtomicInteger posts = new AtomicInteger();
        HttpServer http = redirecting(status, posts);
        try {
            String origin = "http://127.0.0.1:" + http.getAddress().getPort();
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", origin + "/v1", "OPENAI_API_KEY", "sk-test"),
                    "token-benchmark", "--model", "m", "--max-num-completed-requests", "4", "--no-server-metrics",
                    "--no-client-warmup", "--results-dir", dir.resolve("out").toString());
            assertEquals(1, run.exitCode(), run::toString);
            String error = run.err().lines().filter(l -> l.startsWith("llmperf4j: error: ")).findFirst().orElse("");
            assertEquals("llmperf4j: error: the server at 127.0.0.1:" + http.getAddress().getPort() + " answered "
                    + "the pre-run request with HTTP " + status + " redirect to " + origin
                    + "/served/v1/chat/completions?api_key=[redacted] (the client does not follow redirects: point "
                    + "OPENAI_API_BASE at " + origin + "/served/v1) (run with --debug for details)", error,
                    run::toString);
            assertFalse(run.toString().contains(LOCATION_KEY), run::toString);
            // the check's request only: its failure names the Location; no run
            assertEquals(1, posts.get(), run::toString);
            assertFalse(Files.exists(dir.resolve("out")), "no results folder");
        } finally {
            http.stop(0);
        }
    }

    @Test
    void doctorFailsItsRequestCheckWithTheSameWords() throws Exception {
        HttpServer http = redirecting(308, new AtomicInteger());
        try {
            String origin = "http://127.0.0.1:" + http.getAddress().getPort();
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", origin + "/v1", "OPENAI_API_KEY", "sk-test"), "doctor");
            assertEquals(1, run.exitCode(), run::toString);
            assertTrue(run.out().contains("[FAIL] streaming: the server at 127.0.0.1:" + http.getAddress().getPort()
                    + " answered its streaming request with HTTP 308 redirect to " + origin
                    + "/served/v1/chat/completions?api_key=[redacted] (the client does not follow redirects: point "
                    + "OPENAI_API_BASE at " + origin + "/served/v1)\n"), run::toString);
            assertFalse(run.toString().contains(LOCATION_KEY), run::toString);
        } finally {
            http.stop(0);
        }
    }

    @Test
    void doctorFailsItsModelsCheckWhenTheWholeGatewayMoved() throws Exception {
        HttpServer http = redirecting(307, new AtomicInteger(), true);
        try {
            String origin = "http://127.0.0.1:" + http.getAddress().getPort();
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", origin + "/v1", "OPENAI_API_KEY", "sk-test"), "doctor");
            assertEquals(1, run.exitCode(), run::toString);
            assertTrue(run.out().contains("[FAIL] API key: the server at 127.0.0.1:" + http.getAddress().getPort()
                    + " answered GET /v1/models with HTTP 307 redirect to " + origin
                    + "/served/v1/models?api_key=[redacted] (the client does not follow redirects: point "
                    + "OPENAI_API_BASE at " + origin + "/served/v1)\n"), run::toString);
            assertFalse(run.toString().contains(LOCATION_KEY), run::toString);
        } finally {
            http.stop(0);
        }
    }
}

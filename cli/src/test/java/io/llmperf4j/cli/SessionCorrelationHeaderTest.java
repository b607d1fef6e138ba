package io.llmperf4j.cli;

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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every turn of a multi-turn session carries {@code X-Correlation-ID: <session id>} (as AIPerf sends a trace's session
 * id), so a session-affinity router can keep a conversation on one replica; a request outside sessions carries none
 * (llmperf sends none), and the header is in no output of the run. Against a server in the test on 127.0.0.1 that
 * keeps each request's X-Request-Id and X-Correlation-ID.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionCorrelationHeaderTest {

    @Test
    void everyTurnOfASessionNamesItsSession(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        try (HeaderServer server = new HeaderServer()) {
            CliRun run = CliRun.of(server.env(), "token-benchmark", "--model", "m", "--turns", "2",
                    "--input-lengths", "fixed:30", "--output-lengths", "fixed:3", "--max-num-completed-requests", "6",
                    "--num-concurrent-requests", "2", "--no-client-warmup", "--results-dir", out.toString());
            assertEquals(0, run.exitCode(), run::toString);
            List<CSVRecord> rows = RunFolder.csv(out);
            assertEquals(6, rows.size());
            for (CSVRecord r : rows) {
                String session = r.get("session_id");
                assertFalse(session.isEmpty(), r::toString);
                assertEquals(Optional.of(session), server.correlation.get(r.get("client_request_id")), r::toString);
            }
            assertNotInAnyOutput(out, run);
        }
    }

    @Test
    void aRequestOutsideSessionsCarriesNone(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        try (HeaderServer server = new HeaderServer()) {
            CliRun run = CliRun.of(server.env(), "token-benchmark", "--model", "m", "--mean-input-tokens", "30",
                    "--stddev-input-tokens", "0", "--mean-output-tokens", "3", "--stddev-output-tokens", "0",
                    "--max-num-completed-requests", "3", "--no-client-warmup", "--results-dir", out.toString());
            assertEquals(0, run.exitCode(), run::toString);
            assertTrue(server.correlation.size() >= 3, server.correlation::toString);
            server.correlation.values().forEach(v -> assertEquals(Optional.empty(), v));
            assertNotInAnyOutput(out, run);
        }
    }

    private static void assertNotInAnyOutput(Path out, CliRun run) throws IOException {
        assertFalse((run.out() + run.err()).toLowerCase().contains("correlation"), run::toString);
        try (Stream<Path> files = Files.walk(out)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                assertFalse(Files.readString(f).toLowerCase().contains("x-correlation-id"), f::toString);
            }
        }
    }

    /** Answers a three-chunk chat stream; keeps each request's X-Correlation-ID by its X-Request-Id. */
    private static final class HeaderServer implements AutoCloseable {
        final Map<String, Optional<String>> correlation = new ConcurrentHashMap<>();
        private final HttpServer server;
        private final ExecutorService executor = Executors.newFixedThreadPool(4);

        HeaderServer() throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
            server.createContext("/v1/chat/completions", this::handle);
            server.setExecutor(executor);
            server.start();
        }

        Map<String, String> env() {
            return Map.of("OPENAI_API_BASE", "http://127.0.0.1:" + server.getAddress().getPort() + "/v1",
                    "OPENAI_API_KEY", "k");
        }

        private void handle(HttpExchange exchange) throws IOException {
            try (exchange) {
                exchange.getRequestBody().readAllBytes();
                correlation.put(exchange.getRequestHeaders().getFirst("X-Request-Id"),
                        Optional.ofNullable(exchange.getRequestHeaders().getFirst("X-Correlation-ID")));
                exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
                exchange.sendResponseHeaders(200, 0);
                OutputStream out = exchange.getResponseBody();
                for (String delta : List.of("{\"role\":\"assistant\",\"content\":\"\"}", "{\"content\":\"seen\"}",
                        "{\"content\":\" it\"}")) {
                    SseEvents.write(out, "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,"
                            + "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":" + delta
                            + ",\"finish_reason\":null}]}");
                }
                SseEvents.write(out, "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,"
                        + "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}");
                SseEvents.write(out, "[DONE]");
            }
        }

        @Override
        public void close() {
            server.stop(0);
            executor.shutdownNow();
        }
    }
}

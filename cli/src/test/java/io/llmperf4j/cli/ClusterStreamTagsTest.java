package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.distributed.testing.LocalWorkers;
import io.llmperf4j.distributed.testing.LoopbackPorts;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A cluster run (a coordinator and one worker, a member in this JVM) against a server on 127.0.0.1 whose streams carry
 * lines without {@code data:}: the records the worker streams to the coordinator keep each request's ignored lines, so
 * the merged run warns STREAM_LINES_IGNORED as a single machine's does, and its requests.jsonl counts them.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterStreamTagsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aClusterRunWarnsOfStreamLinesWithoutData(@TempDir Path dir) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        ExecutorService threads = Executors.newFixedThreadPool(4);
        server.setExecutor(threads);
        server.createContext("/v1/chat/completions", exchange -> {
            try (exchange) {
                JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
                stream(exchange, body.path("max_tokens").asInt() <= 1 ? 1 : 10, body.path("max_tokens").asInt() > 1);
            }
        });
        server.start();
        String cluster = "test-" + UUID.randomUUID();
        try (LocalWorkers worker = LocalWorkers.start(cluster, 1, "k")) {
            List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m",
                    "--mean-input-tokens", "40", "--stddev-input-tokens", "0", "--mean-output-tokens", "20",
                    "--stddev-output-tokens", "0", "--no-client-warmup", "--no-server-metrics",
                    "--num-concurrent-requests", "2", "--max-num-completed-requests", "4",
                    "--results-dir", dir.toString(), "--cluster", cluster, "--workers", "1",
                    "--bind", "127.0.0.1:" + LoopbackPorts.next(), "--worker-wait", "60"));
            for (String id : worker.ids()) args.addAll(List.of("--member", id));
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", "http://127.0.0.1:" + server.getAddress().getPort()
                    + "/v1", "OPENAI_API_KEY", "k"), args.toArray(String[]::new));
            assertEquals(0, run.exitCode(), run::toString);
            String expected = "4 of 4 requests had stream lines without data: (8 lines in all, e.g. hello): skipped";
            assertTrue(run.out().contains("[STREAM_LINES_IGNORED] " + expected), run::toString);
            assertTrue(RunFolder.warning(RunFolder.summary(dir), "STREAM_LINES_IGNORED").startsWith(expected),
                    run::toString);
            List<String> lines = Files.readAllLines(dir.resolve("requests.jsonl"));
            assertEquals(4, lines.size());
            for (String line : lines) {
                JsonNode tags = JSON.readTree(line).get("tags");
                assertEquals(2, tags.path("ignored_stream_lines").asInt(), line);
                assertEquals("hello", tags.path("ignored_stream_line").asText(), line);
            }
        } finally {
            server.stop(0);
            threads.shutdownNow();
        }
    }

    /** 200 with {@code words} chunks of "alpha ", a word alone and a chunk without "data: " after the fifth. */
    private static void stream(HttpExchange exchange, int words, boolean faulty) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        OutputStream out = exchange.getResponseBody();
        for (int i = 0; i < words; i++) {
            if (faulty && i == 5) {
                out.write("hello\n".getBytes(StandardCharsets.UTF_8));
                out.write((chunk("DROPPED ") + "\n\n").getBytes(StandardCharsets.UTF_8));
            }
            SseEvents.write(out, chunk("alpha "));
        }
        SseEvents.write(out, SseEvents.chatChunk("{}", "\"length\""));
        SseEvents.write(out, "[DONE]");
    }

    private static String chunk(String content) {
        return SseEvents.chatChunk("{\"content\":\"" + content + "\"}", null);
    }
}

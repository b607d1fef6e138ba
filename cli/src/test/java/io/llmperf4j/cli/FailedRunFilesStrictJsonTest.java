package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * QA (apis, emb-500): a run whose every request failed wrote {@code "latency_s_p50": NaN} into its embeddings summary,
 * which no strict JSON parser reads, and printed "NaN" on the console. Every JSON and JSONL file the tool writes for
 * itself is parsed strictly here after such runs (a token run, an embeddings run, an embeddings sweep), and no console
 * line says NaN. llmperf's own {@code _summary.json} keeps its bare NaN (llmperf writes it so, documented) and is left
 * out. A server on 127.0.0.1 answers every request 500.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FailedRunFilesStrictJsonTest {
    private static final ObjectMapper STRICT = new ObjectMapper(); // NaN and Infinity refused by default

    private HttpServer server;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", FailedRunFilesStrictJsonTest::fail500);
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private static void fail500(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            in.readAllBytes();
        }
        byte[] body = "{\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}".getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(500, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private CliRun run(Path dir, String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--no-client-warmup",
                "--no-server-metrics", "--mean-input-tokens", "60", "--mean-output-tokens", "5",
                "--max-num-completed-requests", "2", "--results-dir", dir.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(Map.of("OPENAI_API_BASE", "http://127.0.0.1:" + server.getAddress().getPort() + "/v1",
                "OPENAI_API_KEY", "k"), args.toArray(String[]::new));
    }

    /** Every .json and .jsonl under {@code dir} but llmperf's _summary.json parses strictly; how many were read. */
    private static int assertStrictJson(Path dir) throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(dir)) {
            files = walk.filter(Files::isRegularFile).filter(p -> {
                String name = p.getFileName().toString();
                return (name.endsWith(".json") || name.endsWith(".jsonl")) && !isLlmperfSummary(name);
            }).toList();
        }
        for (Path file : files) {
            if (file.toString().endsWith(".jsonl")) {
                for (String line : Files.readAllLines(file)) {
                    if (!line.isBlank()) STRICT.readTree(line);
                }
            } else {
                STRICT.readTree(file.toFile()); // throws on a bare NaN, naming the file's line
            }
        }
        return files.size();
    }

    private static boolean isLlmperfSummary(String name) {
        return name.endsWith("_summary.json") && !name.endsWith("_llmperf4j_summary.json")
                && !name.endsWith("_embeddings_summary.json");
    }

    private static void assertNoNaN(CliRun run) {
        assertFalse(run.out().contains("NaN") || run.err().contains("NaN"), run::toString);
    }

    @Test
    void aTokenRunWhoseEveryRequestFailedWritesStrictJson(@TempDir Path tmp) throws IOException {
        CliRun run = run(tmp.resolve("tokens"), "--num-concurrent-requests", "1");
        assertEquals(ExitCodes.REQUESTS_FAILED, run.exitCode(), run::toString);
        assertTrue(assertStrictJson(tmp.resolve("tokens")) >= 2, "the llmperf4j summary and its responses at least");
    }

    @Test
    void anEmbeddingsRunWhoseEveryRequestFailedWritesStrictJsonAndNoNaN(@TempDir Path tmp) throws IOException {
        CliRun run = run(tmp.resolve("emb"), "--llm-api", "embeddings", "--num-concurrent-requests", "1");
        assertEquals(ExitCodes.REQUESTS_FAILED, run.exitCode(), run::toString);
        assertTrue(run.out().contains("Latency (s): p50 -, p90 -, p99 -, mean -"), run::toString);
        assertNoNaN(run);
        assertEquals(1, assertStrictJson(tmp.resolve("emb")), "the embeddings summary");
    }

    @Test
    void anEmbeddingsSweepWhoseEveryRequestFailedWritesStrictJsonAndNoNaN(@TempDir Path tmp) throws IOException {
        CliRun run = run(tmp.resolve("sweep"), "--llm-api", "embeddings", "--concurrency-sweep", "1,2");
        assertEquals(ExitCodes.REQUESTS_FAILED, run.exitCode(), run::toString);
        assertTrue(run.err().contains("concurrency 1 done: 0/2 ok, 0.00 inputs/s, 0.0 input tok/s, p90 - s"),
                run::toString);
        assertNoNaN(run);
        assertEquals(2, assertStrictJson(tmp.resolve("sweep")), "each level's embeddings summary");
    }
}

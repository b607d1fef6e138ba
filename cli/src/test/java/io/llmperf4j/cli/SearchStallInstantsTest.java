package io.llmperf4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The QA (B-search-itl): an ITL objective's failure was "resolved" from misses that were two stalls of the server
 * hitting every stream at once, counted as independent. A server here stalls all its streams together twice (each
 * stream's gap then spans the stall): the search counts the misses by the instants they share, and two instants do
 * not resolve the failure.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SearchStallInstantsTest {
    private static final int TOKENS = 8;
    private static final long GAP_MS = 10;
    private static final long STALL_MS = 1500;
    /** The arrivals (the pre-run check's is the first) that start a stall of every stream shortly after. */
    private static final int[] STALL_AT = {10, 22};

    private HttpServer server;
    private ExecutorService pool;
    private final AtomicInteger requests = new AtomicInteger();
    /** Until when (System.nanoTime) every stream holds its next token. */
    private final AtomicLong stallUntil = new AtomicLong(Long.MIN_VALUE);

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        pool = Executors.newCachedThreadPool();
        server.setExecutor(pool);
        server.createContext("/v1/chat/completions", this::stream);
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
        pool.shutdownNow();
    }

    private void stream(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            in.readAllBytes();
        }
        int number = requests.incrementAndGet();
        for (int at : STALL_AT) {
            // a little after this arrival, when every stream in flight is between two tokens
            if (number == at) stallUntil.set(System.nanoTime() + (3 * GAP_MS + STALL_MS) * 1_000_000L);
        }
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        OutputStream out = exchange.getResponseBody();
        try {
            for (int sent = 0; sent < TOKENS; sent++) {
                long wait = stallUntil.get() - System.nanoTime();
                if (wait > 0 && wait < STALL_MS * 1_000_000L) TimeUnit.NANOSECONDS.sleep(wait);
                String delta = sent == 0 ? "{\"role\":\"assistant\",\"content\":\"tok\"}" : "{\"content\":\" tok\"}";
                write(out, "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":"
                        + delta + ",\"finish_reason\":null}]}");
                Thread.sleep(GAP_MS);
            }
            write(out, "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},"
                    + "\"finish_reason\":\"length\"}]}");
            write(out, "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":"
                    + "{\"prompt_tokens\":8,\"completion_tokens\":" + TOKENS + ",\"total_tokens\":" + (TOKENS + 8)
                    + "}}");
            out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
            out.close();
        } catch (IOException | InterruptedException gone) {
            exchange.close();
        }
    }

    private static void write(OutputStream out, String json) throws IOException {
        out.write(("data: " + json + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    @Test
    void missesOfStallsThatHitEveryStreamAtOnceCountByTheirInstants(@TempDir Path dir) throws IOException {
        CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", "http://127.0.0.1:" + server.getAddress().getPort() + "/v1",
                        "OPENAI_API_KEY", "k"),
                "token-benchmark", "--model", "m", "--mean-input-tokens", "50", "--stddev-input-tokens", "0",
                "--mean-output-tokens", Integer.toString(TOKENS), "--stddev-output-tokens", "0",
                "--tokenizer", "server", "--no-client-warmup", "--slo", "itl_p99<=600ms", "--search", "concurrency",
                "--search-min", "4", "--search-max", "4", "--search-level-max", "30", "--search-min-samples", "10",
                "--search-no-repeat", "--sleep-between", "0", "--results-dir", dir.toString());
        assertEquals(0, run.exitCode(), run::toString);
        System.out.print(run.out()); // the level's figures, in the test log
        JsonNode level = new ObjectMapper().readTree(dir.resolve("m_50_8_search.json").toFile()).at("/levels/0");
        JsonNode itl = level.at("/objectives/0");
        int misses = itl.get("misses").asInt();
        int instants = itl.get("miss_instants").asInt();
        // each stall holds the gap of every stream in flight (4): at least 3 misses an instant
        assertTrue(misses >= 6, level::toString);
        assertTrue(instants <= misses / 3, level::toString);
        assertFalse(level.get("passed").asBoolean(), "its estimate is past the limit: " + level);
        assertFalse(level.get("resolved").asBoolean(), "two stalls do not resolve the failure: " + level);
        assertEquals("limit", level.get("stop").asText(), "not ended early on the first stall: " + level);
        assertTrue(run.out().contains("itl_p99<=600ms: " + misses + " misses in " + instants + " instant"),
                run::toString);
    }
}

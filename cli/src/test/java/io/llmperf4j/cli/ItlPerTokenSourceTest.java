package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.model.Percentiles;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ITL per token and MULTI_TOKEN_CHUNKS count tokens per event from the run's own output-token source: against a
 * server on 127.0.0.1 that streams one multi-character word per event ("w12 ", several Llama-2 tokens) and says in
 * its usage how many tokens it generated, the server's count decides, not the client tokenizer's; without usage
 * the client's count stays what it was.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ItlPerTokenSourceTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int EVENTS = 21; // 20 gaps a request: an even count, so medians compare exactly
    private static final int REQUESTS = 6;

    /** A server that writes {@code EVENTS} content events 5 ms apart, the i-th (from 1) {@code text(i)}. */
    private static final class WordServer implements AutoCloseable {
        private final HttpServer server;
        private final ExecutorService executor = Executors.newFixedThreadPool(4);
        private final IntFunction<String> text;
        private final Integer usageTokens;

        /** {@code usageTokens} null: no usage chunk. */
        WordServer(IntFunction<String> text, Integer usageTokens) throws IOException {
            this.text = text;
            this.usageTokens = usageTokens;
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
                exchange.getRequestBody().readAllBytes();
                exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
                exchange.sendResponseHeaders(200, 0);
                OutputStream out = exchange.getResponseBody();
                SseEvents.write(out, SseEvents.chatChunk("{\"role\":\"assistant\",\"content\":\"\"}", null));
                for (int i = 1; i <= EVENTS; i++) {
                    pause();
                    SseEvents.write(out, SseEvents.chatChunk(
                            JSON.createObjectNode().put("content", text.apply(i)).toString(), null));
                }
                SseEvents.write(out, SseEvents.chatChunk("{}", "\"length\""));
                if (usageTokens != null) {
                    SseEvents.write(out, "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":"
                            + "\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":"
                            + usageTokens + ",\"total_tokens\":" + (50 + usageTokens) + "}}");
                }
                SseEvents.write(out, "[DONE]");
            }
        }

        private static void pause() throws IOException {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }

        @Override
        public void close() {
            server.stop(0);
            executor.shutdownNow();
        }
    }

    /** A run asking for {@code outputTokens} tokens a request (what the server's usage will say). */
    private static JsonNode run(WordServer server, int outputTokens, Path dir) throws IOException {
        CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "x"),
                "token-benchmark", "--model", "m", "--mean-input-tokens", "50", "--stddev-input-tokens", "0",
                "--mean-output-tokens", Integer.toString(outputTokens), "--stddev-output-tokens", "0",
                "--max-num-completed-requests", Integer.toString(REQUESTS), "--num-concurrent-requests", "2",
                "--results-dir", dir.toString(), "--save-events");
        assertEquals(0, run.exitCode(), run::toString);
        return JSON.readTree(dir.resolve(base(outputTokens) + "_llmperf4j_summary.json").toFile());
    }

    private static String base(int outputTokens) {
        return "m_50_" + outputTokens;
    }

    private static JsonNode stat(JsonNode summary, String metric, String stat) {
        return summary.at("/metrics/" + metric + "/" + stat);
    }

    private static String warnings(JsonNode summary) {
        return summary.get("warnings").toString();
    }

    /** The events file's rows, by client request id, in order. */
    private static Map<String, List<CSVRecord>> events(Path dir, int outputTokens) throws IOException {
        Map<String, List<CSVRecord>> byRequest = new LinkedHashMap<>();
        try (Reader reader = Files.newBufferedReader(dir.resolve(base(outputTokens) + "_events.csv"), StandardCharsets.UTF_8)) {
            for (CSVRecord e : CSVFormat.RFC4180.builder().setHeader().setSkipHeaderRecord(true).get().parse(reader)) {
                byRequest.computeIfAbsent(e.get("client_request_id"), k -> new ArrayList<>()).add(e);
            }
        }
        return byRequest;
    }

    /**
     * METRICS.md §3's per-token ITL of the events file, in ms: per event k after the first with a token, m_k values
     * of the gap from the previous event with a token over m_k, m_k read from {@code column}; sorted.
     */
    private static double[] perTokenMs(Map<String, List<CSVRecord>> events, String column) {
        List<Double> values = new ArrayList<>();
        for (List<CSVRecord> request : events.values()) {
            BigDecimal previous = null;
            for (CSVRecord e : request) {
                int tokens = Integer.parseInt(e.get(column));
                if (tokens <= 0) continue;
                BigDecimal at = new BigDecimal(e.get("offset_s"));
                if (previous != null) {
                    double share = at.subtract(previous).doubleValue() * 1e3 / tokens;
                    for (int t = 0; t < tokens; t++) values.add(share);
                }
                previous = at;
            }
        }
        return values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    }

    @Test
    void oneServerTokenPerEventMakesItlPerTokenTheEventGapWhateverTheClientTokenizerCounts(@TempDir Path tmp)
            throws IOException {
        try (WordServer server = new WordServer(i -> "w" + i + " ", EVENTS)) {
            JsonNode summary = run(server, EVENTS, tmp);
            assertEquals("server_usage", summary.at("/token_counting/output_token_source").asText());
            // every gap is one token's: the per-token samples are the per-event gaps, value for value
            assertEquals(REQUESTS * (EVENTS - 1), stat(summary, "itl_per_token_ms", "count").asInt());
            for (String s : List.of("count", "p50", "p90", "p99", "mean", "min", "max")) {
                assertEquals(stat(summary, "itl_ms", s).asDouble(), stat(summary, "itl_per_token_ms", s).asDouble(),
                        1e-9, s);
            }
            assertFalse(warnings(summary).contains("MULTI_TOKEN_CHUNKS"), warnings(summary));
            Map<String, List<CSVRecord>> events = events(tmp, EVENTS);
            assertEquals(REQUESTS, events.size());
            for (List<CSVRecord> request : events.values()) {
                assertEquals(EVENTS, request.size());
                // Llama-2 splits "w12 " into several tokens; the server said one per event
                assertTrue(request.stream().mapToInt(e -> Integer.parseInt(e.get("tokens"))).sum() > 2 * EVENTS,
                        request::toString);
                assertTrue(request.stream().allMatch(e -> e.get("output_tokens").equals("1")), request::toString);
            }
        }
    }

    @Test
    void threeServerTokensPerEventSplitEachGapInThree(@TempDir Path tmp) throws IOException {
        try (WordServer server = new WordServer(i -> "ab cd ef ", 3 * EVENTS)) {
            JsonNode summary = run(server, 3 * EVENTS, tmp);
            assertEquals("server_usage", summary.at("/token_counting/output_token_source").asText());
            assertTrue(warnings(summary).contains("Content events carry 3.0 output tokens each on average (by the "
                    + "server's usage count)"), warnings(summary));
            // the first event's 3 tokens give no sample; every gap after it gives 3 equal ones
            assertEquals(REQUESTS * (EVENTS - 1) * 3, stat(summary, "itl_per_token_ms", "count").asInt());
            assertEquals(stat(summary, "itl_ms", "p50").asDouble() / 3,
                    stat(summary, "itl_per_token_ms", "p50").asDouble(), 1e-9, "an even count of gaps: exactly");
            assertEquals(stat(summary, "itl_ms", "mean").asDouble() / 3,
                    stat(summary, "itl_per_token_ms", "mean").asDouble(), 1e-9);
            assertTrue(warnings(summary).contains("ITL (per token) splits each gap over its tokens"),
                    warnings(summary));
            Map<String, List<CSVRecord>> events = events(tmp, 3 * EVENTS);
            for (List<CSVRecord> request : events.values()) {
                assertTrue(request.stream().allMatch(e -> e.get("output_tokens").equals("3")), request::toString);
            }
            assertEquals(Percentiles.ofSorted(perTokenMs(events, "output_tokens"), 50),
                    stat(summary, "itl_per_token_ms", "p50").asDouble(), 1e-6);
        }
    }

    @Test
    void withoutUsageTheClientTokenizersCountsStand(@TempDir Path tmp) throws IOException {
        try (WordServer server = new WordServer(i -> "w" + i + " ", null)) {
            JsonNode summary = run(server, EVENTS, tmp);
            assertEquals("client_tokenizer", summary.at("/token_counting/output_token_source").asText());
            Map<String, List<CSVRecord>> events = events(tmp, EVENTS);
            long tokens = 0;
            int samples = 0;
            for (List<CSVRecord> request : events.values()) {
                boolean first = true;
                for (CSVRecord e : request) {
                    assertEquals(e.get("tokens"), e.get("output_tokens"), e::toString);
                    int k = Integer.parseInt(e.get("tokens"));
                    tokens += k;
                    if (k > 0 && !first) samples += k;
                    if (k > 0) first = false;
                }
            }
            // per-token ITL from the client tokenizer's tokens per event, as before
            assertEquals(samples, stat(summary, "itl_per_token_ms", "count").asInt());
            double[] expected = perTokenMs(events, "tokens");
            assertEquals(Percentiles.ofSorted(expected, 50), stat(summary, "itl_per_token_ms", "p50").asDouble(),
                    1e-6);
            assertTrue(warnings(summary).contains(String.format(java.util.Locale.ROOT,
                    "Content events carry %.1f output tokens each on average (by the client tokenizer's count, which "
                            + "may not be the model's)", (double) tokens / (REQUESTS * EVENTS))), warnings(summary));
        }
    }
}

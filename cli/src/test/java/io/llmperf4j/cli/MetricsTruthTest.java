package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.model.Percentiles;
import io.llmperf4j.server.RequestTiming;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import io.llmperf4j.tokenize.Tokenizers;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The acceptance checks through the command line, against the simulated server over loopback: the measured
 * numbers match what the server was configured to do. Bounds are generous (the machine is shared); the figures
 * measured on a quiet machine are in METRICS.md.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MetricsTruthTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BASE = "m_550_100";

    /** One token-benchmark run of 100-token answers against a server built from {@code config}. */
    private static JsonNode run(UnaryOperator<SimulatorConfig.Builder> config, Path dir, int requests,
                                int concurrency, String... extra) throws IOException {
        return runAnswering(100, config, new ConcurrentHashMap<>(), dir, requests, concurrency, extra);
    }

    /**
     * One token-benchmark run of {@code outputTokens}-token answers against a server built from {@code config};
     * {@code serverLog} receives what the server did for each request (its own send times), by response id.
     */
    private static JsonNode runAnswering(int outputTokens, UnaryOperator<SimulatorConfig.Builder> config,
                                         Map<String, RequestTiming> serverLog, Path dir, int requests,
                                         int concurrency, String... extra) throws IOException {
        try (SimulatedServer server = SimulatedServer.start(config.apply(SimulatorConfig.builder()
                .promptTokenCounter(Tokenizers.builtInLlama2())).timingListener(t -> serverLog.put(t.requestId(), t))
                .build())) {
            List<String> args = new java.util.ArrayList<>(List.of("token-benchmark", "--model", "m",
                    "--mean-input-tokens", "550", "--stddev-input-tokens", "0",
                    "--mean-output-tokens", Integer.toString(outputTokens), "--stddev-output-tokens", "0",
                    "--max-num-completed-requests", Integer.toString(requests),
                    "--num-concurrent-requests", Integer.toString(concurrency), "--results-dir", dir.toString()));
            args.addAll(List.of(extra));
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "x"),
                    args.toArray(String[]::new));
            assertEquals(0, run.exitCode(), run::toString);
            return JSON.readTree(dir.resolve("m_550_" + outputTokens + "_llmperf4j_summary.json").toFile());
        }
    }

    private static double p50(JsonNode summary, String metric) {
        return summary.at("/metrics/" + metric + "/p50").asDouble();
    }

    @Test
    void fourTokenChunksGivePerTokenItlAQuarterOfTheEventGapAndTheSameTpot(@TempDir Path tmp) throws IOException {
        // D = 20 ms between events; the simulator's inter-token delay is per token, so D / 4 = 5 ms. The gaps are read
        // against the server's own send times, not a band around D: on a loaded machine events that the client
        // reads together truthfully arrive 0 ms apart (a median of 17 ms per event, 3.9 ms per token, seen at load 16)
        Duration perToken = Duration.ofMillis(5);
        Map<String, RequestTiming> serverLog = new ConcurrentHashMap<>();
        Path chunkedDir = tmp.resolve("chunked");
        JsonNode chunked = runAnswering(100, b -> b.timeToFirstToken(Duration.ofMillis(20)).interTokenDelay(perToken)
                .tokensPerChunk(4), serverLog, chunkedDir, 12, 4, "--save-events");
        Path singleDir = tmp.resolve("single");
        JsonNode single = run(b -> b.timeToFirstToken(Duration.ofMillis(20)).interTokenDelay(perToken)
                .tokensPerChunk(1), singleDir, 12, 4);

        // per-event ITL is the gap between content events as they arrived: the median of the events file's gaps,
        // each event no earlier than the server sent its chunk (the client's clock starts before the request
        // arrives, and it reads after the write)
        Map<String, RequestTiming> byClientId = new HashMap<>();
        for (CSVRecord r : csv(chunkedDir.resolve(BASE + "_requests.csv"))) {
            byClientId.put(r.get("client_request_id"), serverLog.get(r.get("server_response_id")));
        }
        List<Double> gapsMs = new java.util.ArrayList<>();
        Map<String, Double> previous = new HashMap<>();
        for (CSVRecord e : csv(chunkedDir.resolve(BASE + "_events.csv"))) {
            String id = e.get("client_request_id");
            int index = Integer.parseInt(e.get("event_index"));
            RequestTiming server = byClientId.get(id);
            assertEquals(25, server.chunkSentNanos().length, "the server sent 100 tokens in 25 chunks: " + server);
            long sentNanos = server.chunkSentNanos()[index] - server.arrivalNanos();
            assertTrue(offsetNanos(e) >= sentNanos, "event " + e + " before the server sent it, " + sentNanos + " ns");
            double offsetMs = offsetNanos(e) / 1e6;
            if (index > 0) gapsMs.add(offsetMs - previous.get(id));
            previous.put(id, offsetMs);
        }
        // 100 tokens in 25 events: 24 later events of 4 tokens each
        assertEquals(12 * 24, gapsMs.size());
        assertEquals(12 * 24, chunked.at("/metrics/itl_ms/count").asInt());
        assertEquals(median(gapsMs), p50(chunked, "itl_ms"), 1e-6, "per-event ITL = the gap between events");
        // each gap split into 4 equal per-token shares: an even count of gaps, so the medians are exactly 4 apart
        assertEquals(12 * 24 * 4, chunked.at("/metrics/itl_per_token_ms/count").asInt());
        assertEquals(p50(chunked, "itl_ms") / 4, p50(chunked, "itl_per_token_ms"), 1e-9, "per-token ITL = D / 4");
        assertEquals(12 * 99, single.at("/metrics/itl_per_token_ms/count").asInt());
        assertEquals(p50(single, "itl_ms"), p50(single, "itl_per_token_ms"), 1e-9, "one token per event");
        // TPOT is (E2E - TTFT) / 99 tokens, not per event, in both runs: 24 * 20 / 99 = 4.85 ms chunked and
        // 99 * 5 / 99 = 5 ms one by one on a quiet machine
        assertEquals(tpotMedian(chunkedDir, BASE, false), p50(chunked, "tpot_ms"), 1e-6, "TPOT counts tokens");
        assertEquals(tpotMedian(singleDir, BASE, false), p50(single, "tpot_ms"), 1e-6);
        assertTrue(chunked.get("warnings").toString().contains("ITL (per token) splits each gap"),
                chunked.get("warnings")::toString);
        assertFalse(Files.exists(tmp.resolve("single").resolve(BASE + "_events.csv")), "only with --save-events");
    }

    /** An events-file row's {@code offset_s} in whole nanoseconds (it is written with nanosecond digits). */
    private static long offsetNanos(CSVRecord event) {
        return new java.math.BigDecimal(event.get("offset_s")).movePointRight(9).longValueExact();
    }

    private static double median(List<Double> values) {
        return Percentiles.ofSorted(values.stream().mapToDouble(Double::doubleValue).sorted().toArray(), 50);
    }

    /**
     * The median TPOT (ms) of a run's requests, from its requests CSV by METRICS.md's definition: (E2E - decode
     * start) / (server tokens - 1), the decode start the first reasoning token when {@code fromReasoning}; none for
     * an answer that arrived in one read (E2E = its start), as the summary leaves it out.
     */
    private static double tpotMedian(Path dir, String base, boolean fromReasoning) throws IOException {
        List<Double> tpots = new java.util.ArrayList<>();
        for (CSVRecord r : csv(dir.resolve(base + "_requests.csv"))) {
            double start = Double.parseDouble(r.get(fromReasoning ? "ttfrt_s" : "ttft_s"));
            double e2e = Double.parseDouble(r.get("end_to_end_latency_s"));
            int n = Integer.parseInt(r.get("output_tokens_server"));
            if (e2e > start) tpots.add((e2e - start) * 1e3 / (n - 1));
        }
        return median(tpots);
    }

    @Test
    void saveEventsWritesOneRowPerContentEvent(@TempDir Path tmp) throws IOException {
        run(b -> b.timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)).tokensPerChunk(4),
                tmp, 5, 2, "--save-events");
        List<CSVRecord> requests = csv(tmp.resolve(BASE + "_requests.csv"));
        List<CSVRecord> events = csv(tmp.resolve(BASE + "_events.csv"));
        assertEquals(List.of("client_request_id", "prompt_index", "event_index", "offset_s", "chars", "tokens",
                        "output_tokens"),
                events.get(0).getParser().getHeaderNames());
        assertEquals(5 * 25, events.size(), "100 tokens in chunks of 4, for each of 5 requests");
        Map<String, Integer> tokensByRequest = new HashMap<>();
        Map<String, Double> lastOffset = new HashMap<>();
        for (CSVRecord e : events) {
            String id = e.get("client_request_id");
            int index = Integer.parseInt(e.get("event_index"));
            double offset = Double.parseDouble(e.get("offset_s"));
            assertEquals(9, e.get("offset_s").length() - e.get("offset_s").indexOf('.') - 1, "ns digits: " + e);
            assertEquals(4, Integer.parseInt(e.get("tokens")), e::toString);
            assertTrue(Integer.parseInt(e.get("chars")) > 0, e::toString);
            if (index > 0) assertTrue(offset >= lastOffset.get(id), e::toString);
            lastOffset.put(id, offset);
            tokensByRequest.merge(id, 4, Integer::sum);
        }
        for (CSVRecord r : requests) {
            String id = r.get("client_request_id");
            // the BOS is in llmperf's count but in no event
            assertEquals(Integer.parseInt(r.get("output_tokens_client")) - 1, tokensByRequest.get(id), id);
            assertEquals(Double.parseDouble(r.get("end_to_end_latency_s")) >= lastOffset.get(id), true, id);
            assertEquals("", r.get("ttfrt_s"), "no reasoning");
        }
    }

    @Test
    void loadRunsSaveEventsPerLevelToo(@TempDir Path tmp) throws IOException {
        run(b -> b.timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)), tmp, 4, 1,
                "--request-rate", "50", "--save-events");
        List<CSVRecord> events = csv(tmp.resolve(BASE + "_events.csv"));
        assertEquals(4 * 100, events.size(), "one token per event");
        assertTrue(events.stream().allMatch(e -> e.get("tokens").equals("1")));
    }

    @Test
    void reasoningIsTimedApartAndTtftStaysTheFirstContent(@TempDir Path tmp) throws IOException {
        Map<String, RequestTiming> serverLog = new ConcurrentHashMap<>();
        JsonNode summary = runAnswering(100, b -> b.timeToFirstToken(Duration.ofMillis(20))
                .interTokenDelay(Duration.ofMillis(5)).reasoningTokens(8), serverLog, tmp, 6, 2, "--save-events");
        assertEquals(6, summary.at("/metrics/ttfrt_ms/count").asInt());
        // the first reasoning token is due at the configured TTFT, the first content 8 tokens (40 ms) later; due
        // times are never early. Each is read against the server's own send time of its chunk, not a band: on a
        // loaded machine the client reads late (TTFT p50 88 ms seen at load 16), and a late batch can bring
        // reasoning and content in one read
        Map<String, Double> firstContent = firstEventOffsets(tmp);
        for (CSVRecord r : csv(tmp.resolve(BASE + "_requests.csv"))) {
            RequestTiming server = serverLog.get(r.get("server_response_id"));
            double requestTtfrt = Double.parseDouble(r.get("ttfrt_s"));
            double requestTtft = Double.parseDouble(r.get("ttft_s"));
            assertTrue(requestTtfrt >= 0.020 && requestTtft >= 0.060 && requestTtfrt <= requestTtft, r::toString);
            // chunk 0 is the first reasoning token, chunk 8 the first content (one token a chunk)
            assertTrue(requestTtfrt * 1e9 >= server.chunkSentNanos()[0] - server.arrivalNanos(), r + " " + server);
            assertTrue(requestTtft * 1e9 >= server.chunkSentNanos()[8] - server.arrivalNanos(), r + " " + server);
            // TTFT is the first content event the client recorded, not a reasoning one
            assertEquals(firstContent.get(r.get("client_request_id")), requestTtft, 1e-9, r::toString);
        }
        // usage counts the reasoning tokens too, so TPOT runs from the first reasoning token over all 100 tokens
        assertEquals(tpotMedian(tmp, BASE, true), p50(summary, "tpot_ms"), 1e-6, "TPOT from the first reasoning");
        String llmperfRequests = Files.readString(tmp.resolve(BASE + "_individual_responses.json"));
        assertFalse(llmperfRequests.contains("reasoning") || llmperfRequests.contains("ttfrt"),
                "llmperf's files keep llmperf's keys");
    }

    @Test
    void ttftAtConcurrencyOneIsTheConfiguredTtft(@TempDir Path tmp) throws IOException {
        // the server tokenizes each 550-token prompt with Llama-2 (about 2 ms) inside its 20 ms, as `serve` does
        // 10 requests one at a time (each TTFT is checked on its own against the server's log, so 10 check what 20
        // did); 40-token answers (0.2 s each, TPOT the mean of 39 gaps) rather than 100 (0.5 s): what is measured
        // does not depend on the answer's length. Each TTFT is read against the server's own log,
        // not a band: on a loaded machine the client reads late (p50 37 ms for these 20 ms, seen at load 16)
        Map<String, RequestTiming> serverLog = new ConcurrentHashMap<>();
        JsonNode summary = runAnswering(40, b -> b.timeToFirstToken(Duration.ofMillis(20))
                .interTokenDelay(Duration.ofMillis(5)), serverLog, tmp, 10, 1, "--save-events");
        Map<String, Double> firstEvent = firstEventOffsets(tmp);
        List<Double> ttfts = new java.util.ArrayList<>();
        for (CSVRecord r : csv(tmp.resolve("m_550_40_requests.csv"))) {
            RequestTiming server = serverLog.get(r.get("server_response_id"));
            // one request at a time, so the first token was due the configured 20 ms after the request arrived
            assertEquals(Duration.ofMillis(20).toNanos(), server.firstContentDueNanos() - server.arrivalNanos(),
                    server::toString);
            double ttft = Double.parseDouble(r.get("ttft_s"));
            // the client's clock starts before the request arrives and stops after the first chunk was written
            assertTrue(ttft * 1e9 >= server.chunkSentNanos()[0] - server.arrivalNanos(), r + " " + server);
            assertEquals(firstEvent.get(r.get("client_request_id")), ttft, 1e-9, "TTFT is the first event: " + r);
            ttfts.add(ttft * 1e3);
        }
        assertEquals(10, ttfts.size());
        assertEquals(median(ttfts), p50(summary, "ttft_ms"), 1e-6, "the summary's TTFT is the requests'");
        assertEquals(tpotMedian(tmp, "m_550_40", false), p50(summary, "tpot_ms"), 1e-6, "TPOT = (E2E - TTFT) / 39");
    }

    /** Each request's first content event's {@code offset_s} in the events CSV, by client request id. */
    private static Map<String, Double> firstEventOffsets(Path dir) throws IOException {
        Map<String, Double> first = new HashMap<>();
        try (var files = Files.list(dir)) {
            Path events = files.filter(p -> p.toString().endsWith("_events.csv")).findFirst().orElseThrow();
            for (CSVRecord e : csv(events)) {
                if (e.get("event_index").equals("0")) first.put(e.get("client_request_id"),
                        Double.parseDouble(e.get("offset_s")));
            }
        }
        return first;
    }

    @Test
    void saveEventsNeedsAResultsDirAndAGenerationApi() {
        CliRun.of(Map.of(), "token-benchmark", "--model", "m", "--simulator", "--save-events")
                .assertOneErrorLine(ExitCodes.USAGE, "--save-events writes a file: give --results-dir too");
        CliRun.of(Map.of(), "token-benchmark", "--model", "m", "--simulator", "--save-events", "--results-dir", "x",
                "--llm-api", "embeddings").assertOneErrorLine(ExitCodes.USAGE, "--save-events applies to generation");
    }

    private static List<CSVRecord> csv(Path file) throws IOException {
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return CSVFormat.RFC4180.builder().setHeader().setSkipHeaderRecord(true).get().parse(reader).getRecords();
        }
    }
}

package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
        return runAnswering(100, config, dir, requests, concurrency, extra);
    }

    /** One token-benchmark run of {@code outputTokens}-token answers against a server built from {@code config}. */
    private static JsonNode runAnswering(int outputTokens, UnaryOperator<SimulatorConfig.Builder> config, Path dir,
                                         int requests, int concurrency, String... extra) throws IOException {
        try (SimulatedServer server = SimulatedServer.start(config.apply(SimulatorConfig.builder()
                .promptTokenCounter(Tokenizers.builtInLlama2())).build())) {
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
        // D = 20 ms between events; the simulator's inter-token delay is per token, so D / 4 = 5 ms
        Duration perToken = Duration.ofMillis(5);
        JsonNode chunked = run(b -> b.timeToFirstToken(Duration.ofMillis(20)).interTokenDelay(perToken)
                .tokensPerChunk(4), tmp.resolve("chunked"), 12, 4, "--save-events");
        JsonNode single = run(b -> b.timeToFirstToken(Duration.ofMillis(20)).interTokenDelay(perToken)
                .tokensPerChunk(1), tmp.resolve("single"), 12, 4);

        assertEquals(20.0, p50(chunked, "itl_ms"), 2.0, "per-event ITL = D");
        assertEquals(5.0, p50(chunked, "itl_per_token_ms"), 0.75, "per-token ITL = D / 4");
        // 100 tokens in 25 events: 24 later events of 4 tokens each
        assertEquals(12 * 24 * 4, chunked.at("/metrics/itl_per_token_ms/count").asInt());
        assertEquals(5.0, p50(single, "itl_per_token_ms"), 0.75);
        assertEquals(p50(single, "itl_ms"), p50(single, "itl_per_token_ms"), 1e-9, "one token per event");
        // TPOT: (E2E - TTFT) / 99 is 24 * 20 / 99 = 4.85 ms chunked and 99 * 5 / 99 = 5 ms one by one
        double tpotChunked = p50(chunked, "tpot_ms");
        double tpotSingle = p50(single, "tpot_ms");
        assertEquals(tpotSingle, tpotChunked, 0.1 * tpotSingle, "TPOT does not depend on the chunking");
        assertTrue(chunked.get("warnings").toString().contains("ITL (per token) splits each gap"),
                chunked.get("warnings")::toString);
        assertFalse(Files.exists(tmp.resolve("single").resolve(BASE + "_events.csv")), "only with --save-events");
    }

    @Test
    void saveEventsWritesOneRowPerContentEvent(@TempDir Path tmp) throws IOException {
        run(b -> b.timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)).tokensPerChunk(4),
                tmp, 5, 2, "--save-events");
        List<CSVRecord> requests = csv(tmp.resolve(BASE + "_requests.csv"));
        List<CSVRecord> events = csv(tmp.resolve(BASE + "_events.csv"));
        assertEquals(List.of("client_request_id", "prompt_index", "event_index", "offset_s", "chars", "tokens"),
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
        JsonNode summary = run(b -> b.timeToFirstToken(Duration.ofMillis(20)).interTokenDelay(Duration.ofMillis(5))
                .reasoningTokens(8), tmp, 6, 2);
        assertEquals(6, summary.at("/metrics/ttfrt_ms/count").asInt());
        // the first reasoning token is due at the configured TTFT, the first content 8 tokens (40 ms) later; due
        // times are never early; on a cold server a late batch can bring reasoning and content in one read
        double ttfrt = p50(summary, "ttfrt_ms");
        double ttft = p50(summary, "ttft_ms");
        assertTrue(ttfrt >= 20.0 && ttfrt < 35.0, "TTFRT p50 " + ttfrt + " ms");
        assertTrue(ttft >= 60.0 && ttft < 75.0, "TTFT p50 " + ttft + " ms");
        // usage counts the reasoning tokens too, so TPOT runs from the first reasoning token: still the 5 ms delay
        assertEquals(5.0, p50(summary, "tpot_ms"), 0.5);
        for (CSVRecord r : csv(tmp.resolve(BASE + "_requests.csv"))) {
            double requestTtfrt = Double.parseDouble(r.get("ttfrt_s"));
            double requestTtft = Double.parseDouble(r.get("ttft_s"));
            assertTrue(requestTtfrt >= 0.020 && requestTtft >= 0.060 && requestTtfrt <= requestTtft, r::toString);
        }
        String llmperfRequests = Files.readString(tmp.resolve(BASE + "_individual_responses.json"));
        assertFalse(llmperfRequests.contains("reasoning") || llmperfRequests.contains("ttfrt"),
                "llmperf's files keep llmperf's keys");
    }

    @Test
    void ttftAtConcurrencyOneIsTheConfiguredTtft(@TempDir Path tmp) throws IOException {
        // the server tokenizes each 550-token prompt with Llama-2 (about 2 ms) inside its 20 ms, as `serve` does
        // 20 requests one at a time: a median over 20 is steady enough here; 40-token answers (0.2 s each, TPOT the
        // mean of 39 gaps) rather than 100 (0.5 s): what is measured does not depend on the answer's length
        JsonNode summary = runAnswering(40, b -> b.timeToFirstToken(Duration.ofMillis(20))
                .interTokenDelay(Duration.ofMillis(5)), tmp, 20, 1);
        double ttft = p50(summary, "ttft_ms");
        assertTrue(ttft >= 20.0 && ttft <= 25.0, "TTFT p50 " + ttft + " ms for a configured 20 ms");
        assertEquals(5.0, p50(summary, "tpot_ms"), 0.5, "TPOT = the inter-token delay");
    }

    @Test
    void saveEventsNeedsAResultsDirAndAGenerationApi() {
        CliRun.of(Map.of(), "token-benchmark", "--model", "m", "--save-events")
                .assertOneErrorLine(ExitCodes.USAGE, "--save-events writes a file: give --results-dir too");
        CliRun.of(Map.of(), "token-benchmark", "--model", "m", "--save-events", "--results-dir", "x",
                "--llm-api", "embeddings").assertOneErrorLine(ExitCodes.USAGE, "--save-events applies to generation");
    }

    private static List<CSVRecord> csv(Path file) throws IOException {
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return CSVFormat.RFC4180.builder().setHeader().setSkipHeaderRecord(true).get().parse(reader).getRecords();
        }
    }
}

package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.datasets.trace.Trace;
import io.llmperf4j.datasets.trace.TraceStats;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import io.llmperf4j.tokenize.Tokenizers;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue 17 end to end through token-benchmark against the simulator's prefix cache: a session's second turn,
 * with a longer prompt than another session's first, has the lower TTFT; a trace's measured cached tokens equal
 * trace-stats' prediction; bad trace input is one line and exit 2.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionsAndTracesCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aSecondTurnHitsTheCacheAndBeatsALongerFirstTurn(@TempDir Path tmp) throws IOException {
        // s0: a long first turn, then a short one; s1: one first turn longer than s0's whole second prompt
        String manifest = "{\"format\":\"llmperf4j-workload\",\"version\":1,\"kind\":\"synthetic\","
                + "\"tokenizer\":\"test\",\"seed\":1,\"source\":\"test\",\"generation\":{},\"sampling_params\":{},"
                + "\"request_count\":3}\n"
                + turn(0, "alpha ", 200, 4, "s0", 0) + turn(1, "beta ", 16, 4, "s0", 1)
                + turn(2, "gamma ", 250, 4, "s1", 0);
        Path workload = Files.writeString(tmp.resolve("w.jsonl"), manifest);
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ZERO).interTokenDelay(Duration.ofMillis(1))
                .prefillPerPromptToken(Duration.ofMillis(1)).build())) {
            CliRun run = CliRun.of(env(server), "token-benchmark", "--model", "sim", "--workload", workload.toString(),
                    "--max-num-completed-requests", "3", "--num-concurrent-requests", "1", "--think-time", "fixed:1",
                    "--no-client-warmup", "--results-dir", tmp.resolve("out").toString());
            assertEquals(0, run.exitCode(), run::toString);
        }
        List<CSVRecord> rows = RunFolder.csv(tmp.resolve("out"));
        CSVRecord s0t1 = row(rows, "s0", "1");
        CSVRecord s1t0 = row(rows, "s1", "0");
        int longerPrompt = Integer.parseInt(s1t0.get("prompt_tokens_server"));
        int secondTurnPrompt = Integer.parseInt(s0t1.get("prompt_tokens_server"));
        assertTrue(longerPrompt >= secondTurnPrompt, longerPrompt + " < " + secondTurnPrompt);
        assertTrue(Integer.parseInt(s0t1.get("cached_tokens")) >= 192, s0t1.toString());
        double secondTurnTtft = Double.parseDouble(s0t1.get("ttft_s"));
        double firstTurnTtft = Double.parseDouble(s1t0.get("ttft_s"));
        assertTrue(secondTurnTtft < firstTurnTtft, secondTurnTtft + " s >= " + firstTurnTtft + " s");

        JsonNode sessions = RunFolder.summary(tmp.resolve("out")).get("sessions");
        assertEquals(2, sessions.get("sessions").asInt(), sessions::toString);
        assertEquals(2, sessions.get("by_turn").size(), sessions::toString);
        assertEquals(2, sessions.get("by_turn").get(0).get("requests").asInt());
        assertTrue(sessions.get("prefix_cache_hit_rate").asDouble() > 0, sessions::toString);
    }

    @Test
    void aTracesMeasuredCachedTokensEqualTraceStatsPrediction(@TempDir Path tmp) throws IOException {
        assumeTrue(Tokenizers.builtInLlama2Available(), "built-in Llama-2 tokenizer not derived in this build");
        Path trace = Files.writeString(tmp.resolve("t.jsonl"), """
                {"timestamp": 0, "input_length": 1100, "output_length": 3, "hash_ids": [0, 1, 2]}
                {"timestamp": 200, "input_length": 1500, "output_length": 3, "hash_ids": [0, 1, 3]}
                {"timestamp": 400, "input_length": 700, "output_length": 3, "hash_ids": [0, 4]}
                {"timestamp": 600, "input_length": 1100, "output_length": 3, "hash_ids": [5, 6, 7]}
                {"timestamp": 800, "input_length": 2100, "output_length": 3, "hash_ids": [5, 6, 7, 8, 9]}
                """);
        CliRun stats = CliRun.of(Map.of(), "trace-stats", "mooncake:" + trace);
        assertEquals(0, stats.exitCode(), stats::toString);
        long predicted = TraceStats.of(Trace.load("mooncake:" + trace), 512, 0).cachedTokens();
        assertEquals(1024 + 512 + 1024, predicted, "blocks 0,1; 0; 5,6 (block 7 of request 3 is its last, never cached)");
        assertTrue(stats.out().contains("(" + predicted + " of 6500 prompt tokens)"), stats::toString);

        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ZERO).interTokenDelay(Duration.ofMillis(1))
                .promptTokenCounter(Tokenizers.builtInLlama2()).prefixBlockTokens(512).build())) {
            CliRun run = CliRun.of(env(server), "token-benchmark", "--model", "sim", "--trace", "mooncake:" + trace,
                    "--trace-speedup", "2", "--no-client-warmup", "--results-dir", tmp.resolve("out").toString());
            assertEquals(0, run.exitCode(), run::toString);
        }
        JsonNode sessions = RunFolder.summary(tmp.resolve("out")).get("sessions");
        assertEquals(predicted, sessions.get("cached_tokens").asLong(), sessions::toString);
        assertEquals(5, RunFolder.csv(tmp.resolve("out")).size());
    }

    /**
     * A replay describes itself as one wherever the run is described: the console's load lines, llmperf's metadata,
     * {@code _open_loop.json} and the HTML report (as written, and rebuilt by {@code report DIR}); no drawn
     * arrivals, no arrival seed, no "Requests to complete" from the default --max-num-completed-requests.
     */
    @Test
    void aTraceReplayIsDescribedAsTheTraceItReplays(@TempDir Path tmp) throws IOException {
        Path trace = Files.writeString(tmp.resolve("t.jsonl"), """
                {"timestamp": 0, "input_length": 40, "output_length": 3, "hash_ids": [0]}
                {"timestamp": 200, "input_length": 40, "output_length": 3, "hash_ids": [1]}
                {"timestamp": 400, "input_length": 40, "output_length": 3, "hash_ids": [2]}
                {"timestamp": 1000, "input_length": 40, "output_length": 3, "hash_ids": [3]}
                """);
        Path out = tmp.resolve("out");
        CliRun run;
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)).build())) {
            // sped up 2x: 0, 100, 200, 500 ms; the first 0.25 s keep 3 requests over 0.2 s, a mean of 10 req/s
            run = CliRun.of(env(server), "token-benchmark", "--model", "sim", "--trace", "mooncake:" + trace,
                    "--trace-speedup", "2", "--trace-duration", "0.25", "--no-client-warmup", "--results-dir",
                    out.toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        String load = "trace replay of mooncake:" + trace + " (3 requests over 0.2 s, speedup 2, first 0.25 s), "
                + "mean 10 req/s";
        assertTrue(run.err().contains("llmperf4j: load: " + load + "\n"), run::toString);
        assertTrue(run.out().contains("Open loop: trace replay of mooncake:" + trace + " (3 requests over 0.2 s, "
                + "speedup 2, first 0.25 s), mean offered 10 req/s, no cap on requests in flight\n"), run::toString);
        assertFalse(run.out().contains("constant") || run.out().contains("(seed"), run::toString);

        JsonNode open;
        try (var files = Files.list(out)) {
            open = JSON.readTree(files.filter(p -> p.toString().endsWith("_open_loop.json")).findFirst()
                    .orElseThrow().toFile());
        }
        assertEquals("trace", open.get("arrival").asText());
        assertTrue(open.get("seed").isNull(), open::toString);
        assertEquals(10.0, open.get("offered_requests_per_s").asDouble(), 1e-9);
        assertEquals(3, open.get("arrivals_scheduled").asInt());
        assertEquals(3, open.get("requests_sent").asInt());
        JsonNode t = open.get("trace");
        assertEquals("mooncake:" + trace, t.get("source").asText());
        assertEquals(3, t.get("requests").asInt());
        assertEquals(0.2, t.get("span_s").asDouble(), 1e-9);
        assertEquals(2.0, t.get("speedup").asDouble());
        assertEquals(0.25, t.get("duration_s").asDouble(), 1e-9);

        assertEquals(load, RunFolder.summary(out).get("settings").get("metadata").get("llmperf4j_load").asText());
        JsonNode llmperf;
        try (var files = Files.list(out)) {
            llmperf = JSON.readTree(files.filter(p -> p.getFileName().toString().matches(".*_\\d+_summary\\.json"))
                    .findFirst().orElseThrow().toFile());
        }
        assertEquals(load, llmperf.get("llmperf4j_load").asText());
        // the whole (cut) trace is the run's count, not --max-num-completed-requests' default of 10
        assertEquals(3, RunFolder.summary(out).get("settings").get("max_num_completed_requests").asInt());

        String written = html(out);
        CliRun rebuilt = CliRun.of(Map.of(), "report", out.toString());
        assertEquals(0, rebuilt.exitCode(), rebuilt::toString);
        for (String page : List.of(written, html(out))) {
            assertEquals(load, HtmlRows.value(page, "Load"));
            assertEquals("3", HtmlRows.value(page, "Arrivals scheduled"));
            assertEquals(Integer.toString(llmperf.get("num_concurrent_requests").asInt()),
                    HtmlRows.value(page, "Peak in flight"));
            assertNull(HtmlRows.value(page, "Requests to complete"), "--max-num-completed-requests does not apply");
            assertNull(HtmlRows.value(page, "Concurrency"));
            assertTrue(HtmlRows.value(page, "Send lag").startsWith("p50 "), page);
            assertTrue(HtmlRows.value(page, "TTFT from intended send").startsWith("p50 "), page);
            assertTrue(page.contains("<p class=\"sub\">") && page.contains(" \u00b7 " + load + " \u00b7 peak "),
                    "the header names the replay");
            assertFalse(page.contains("constant") || page.contains("(seed"), "no drawn arrivals claimed");
        }
    }

    private static String html(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            return Files.readString(files.filter(p -> p.toString().endsWith("_report.html")).findFirst()
                    .orElseThrow());
        }
    }

    @Test
    void badTracesAreOneLineNamingFileAndLine(@TempDir Path tmp) throws IOException {
        Path missing = Files.writeString(tmp.resolve("m.jsonl"),
                "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2}\n{\"timestamp\": 5, \"output_length\": 2}\n");
        CliRun.of(Map.of(), "token-benchmark", "--trace", "mooncake:" + missing)
                .assertOneErrorLine(2, "m.jsonl, line 2: missing field \"input_length\"");
        Path backwards = Files.writeString(tmp.resolve("b.csv"), "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                + "2023-11-16 18:17:04.0000000,396,109\n2023-11-16 18:17:03.9799600,374,44\n");
        CliRun.of(Map.of(), "trace-stats", "azure:" + backwards).assertOneErrorLine(2, "b.csv, line 3: TIMESTAMP");
        CliRun.of(Map.of(), "trace-stats", "sharegpt:" + backwards).assertOneErrorLine(2, "unknown trace format");
        CliRun.of(Map.of(), "token-benchmark", "--turns", "often", "--think-time", "5", "--shared-prefix-groups", "2",
                "--prefix-tokens", "64").assertOneErrorLine(2, "--turns 'often'");
        CliRun.of(Map.of(), "token-benchmark", "--turns", "fixed:0")
                .assertOneErrorLine(2, "--turns 'fixed:0': a session has at least 1 turn");
        CliRun.of(Map.of(), "token-benchmark", "--turns", "uniform:0,3")
                .assertOneErrorLine(2, "--turns 'uniform:0,3': a session has at least 1 turn");
        CliRun.of(Map.of(), "token-benchmark", "--shared-prefix-groups", "2")
                .assertOneErrorLine(2, "--shared-prefix-groups needs --prefix-tokens");
    }

    private static String turn(int index, String word, int words, int maxTokens, String session, int turn) {
        String prompt = word.repeat(words).strip();
        return "{\"index\":" + index + ",\"prompt\":\"" + prompt + "\",\"number_input_tokens\":" + words
                + ",\"max_tokens\":" + maxTokens + ",\"session_id\":\"" + session + "\",\"turn\":" + turn + "}\n";
    }

    private static Map<String, String> env(SimulatedServer server) {
        return Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k");
    }

    private static CSVRecord row(List<CSVRecord> rows, String session, String turn) {
        return rows.stream().filter(r -> r.get("session_id").equals(session) && r.get("turn").equals(turn))
                .findFirst().orElseThrow(() -> new AssertionError("no row " + session + "/" + turn + " in " + rows));
    }
}

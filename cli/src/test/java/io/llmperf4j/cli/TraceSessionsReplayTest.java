package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A trace with sessions, replayed against the simulator: its later turns go on their delays after the previous
 * reply, so the run's time limit covers the sessions' delay chains, its rate counts session starts, and a turn the
 * run's end kept unsent is counted and warned about; trace-stats counts sessions likewise.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TraceSessionsReplayTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Sessions a (0 ms) and b (100 ms), each with a second turn 1.5 s after its first reply; timestamps 200, 300. */
    private static final String DELAYED_SECOND_TURNS = """
            {"timestamp": 0, "input_length": 100, "output_length": 5, "session_id": "a"}
            {"timestamp": 100, "input_length": 100, "output_length": 5, "session_id": "b"}
            {"timestamp": 200, "input_length": 100, "output_length": 5, "session_id": "a", "delay": 1500}
            {"timestamp": 300, "input_length": 100, "output_length": 5, "session_id": "b", "delay": 1500}
            """;

    @Test
    void theTimeLimitCoversTheSessionsDelaysAndEveryTurnIsSent(@TempDir Path tmp) throws IOException {
        Path trace = Files.writeString(tmp.resolve("t.jsonl"), DELAYED_SECOND_TURNS);
        Path out = tmp.resolve("out");
        CliRun run;
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)).build())) {
            run = CliRun.of(env(server), "token-benchmark", "--model", "sim", "--trace", "mooncake:" + trace,
                    "--timeout", "1", "--no-client-warmup", "--results-dir", out.toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        // the span (0.3 s) would give 2 s; b's second turn is due at 0.1 + 1.5 s at the earliest
        assertTrue(run.err().contains("llmperf4j: trace replay: run time limit 3 s = its last turn due at 1.6 s (a "
                + "session's start plus its turns' delays, rounded up to 2 s) + --timeout 1 s"), run::toString);
        assertEquals(3, RunFolder.summary(out).get("settings").get("timeout_s").asInt());
        List<CSVRecord> rows = RunFolder.csv(out);
        assertEquals(4, rows.size(), rows::toString);
        assertEquals(2, rows.stream().filter(r -> r.get("turn").equals("1")).count(), rows::toString);
        // the offered rate counts session starts: 2 over 0.1 s
        assertTrue(run.out().contains("), mean offered 10 sessions/s, no cap on requests in flight"), run::toString);
        assertTrue(run.out().contains("Rates: scheduled 10.00 sessions/s"), run::toString);
        assertTrue(run.out().contains("Sessions: 2 scheduled, 2 started, 0 not started; 4 requests (turns) sent, "
                + "0 not sent;"), run::toString);
        assertFalse(run.out().contains("were not sent"), run::toString);
        assertTrue(run.err().contains("load: trace replay of mooncake:" + trace
                + " (2 sessions (4 requests) starting over 0.1 s, speedup 1), mean 10 sessions/s"), run::toString);
        JsonNode open = openLoop(out);
        assertEquals(10.0, open.get("offered_requests_per_s").asDouble(), 1e-9);
        assertEquals(2, open.get("arrivals_scheduled").asInt());
        assertEquals(2, open.get("trace").get("sessions").asInt());
        assertEquals(0, open.get("trace").get("requests_not_sent").asInt());
        assertEquals(4, open.get("trace").get("requests").asInt());
        assertTrue(RunFolder.summary(out).toString().contains("mean 10 sessions/s"), "llmperf4j_load metadata");
    }

    @Test
    void turnsTheRunsEndKeptUnsentAreCountedAsNotSentAndWarned(@TempDir Path tmp) throws IOException {
        // a's first reply takes 100 tokens at 12 ms, at least 5 + 99 x 12 = 1.2 s; its second turn is due 0.9 s after
        // it, 2.1 s in or later: the limit (0.9 s rounded up + --timeout 1 s = 2 s) ends the run first, with a's first
        // turn done. A reply can only be later than its delays, so 1.2 s (just past 1.1) leaves the 0.8 s up to the
        // limit to a busy machine (1.5 s at 15 ms left 0.5 s, and a loaded run ended before the first turn did)
        Path trace = Files.writeString(tmp.resolve("t.jsonl"), """
                {"timestamp": 0, "input_length": 100, "output_length": 100, "session_id": "a"}
                {"timestamp": 50, "input_length": 100, "output_length": 5, "session_id": "a", "delay": 900}
                """);
        Path out = tmp.resolve("out");
        CliRun run;
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(12)).build())) {
            run = CliRun.of(env(server), "token-benchmark", "--model", "sim", "--trace", "mooncake:" + trace,
                    "--timeout", "1", "--no-client-warmup", "--results-dir", out.toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.err().contains("run time limit 2 s = its last turn due at 0.9 s"), run::toString);
        assertTrue(run.out().contains("Sessions: 1 scheduled, 1 started, 0 not started; 1 request (turn) sent, "
                + "1 not sent;"), run::toString);
        assertTrue(run.out().contains("Warning: 1 of the trace's 2 requests was not sent: the run's time limit came "
                + "first (raise --timeout)"), run::toString);
        JsonNode open = openLoop(out);
        assertEquals(1, open.get("trace").get("requests_not_sent").asInt());
        assertEquals(1, open.get("requests_sent").asInt());
        assertEquals(1, open.get("requests_succeeded").asInt(), "the first turn was done before the limit");
        assertTrue(open.get("timed_out").asBoolean());
    }

    @Test
    void sessionPromptTokensAreTheServersEvenWithoutCachedCounts(@TempDir Path tmp) throws IOException {
        // two one-turn sessions of distinct prompts: the simulator reports no cached tokens for them
        Path trace = Files.writeString(tmp.resolve("t.jsonl"), """
                {"timestamp": 0, "input_length": 100, "output_length": 5, "session_id": "a"}
                {"timestamp": 100, "input_length": 100, "output_length": 5, "session_id": "b"}
                """);
        Path out = tmp.resolve("out");
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)).build())) {
            CliRun run = CliRun.of(env(server), "token-benchmark", "--model", "sim", "--trace", "mooncake:" + trace,
                    "--no-client-warmup", "--results-dir", out.toString());
            assertEquals(0, run.exitCode(), run::toString);
        }
        List<CSVRecord> rows = RunFolder.csv(out);
        assertEquals(2, rows.size());
        long serverPrompt = 0;
        for (CSVRecord r : rows) {
            assertEquals("", r.get("cached_tokens"), r::toString);
            serverPrompt += Long.parseLong(r.get("prompt_tokens_server"));
        }
        assertTrue(serverPrompt > 200, "the trace's 100 tokens each and the chat template's: " + serverPrompt);
        JsonNode sessions = RunFolder.summary(out).get("sessions");
        assertEquals(serverPrompt, sessions.get("prompt_tokens").asLong(), sessions::toString);
        assertEquals(0, sessions.get("cached_tokens").asLong(), sessions::toString);
        assertTrue(sessions.get("prefix_cache_hit_rate").isNull(), sessions::toString);
    }

    @Test
    void traceStatsCountsSessionStartsAsArrivalsAndReportsTurnsAndThinkTimes(@TempDir Path tmp) throws IOException {
        Path trace = Files.writeString(tmp.resolve("t.jsonl"), """
                {"timestamp": 0, "input_length": 300, "output_length": 10, "session_id": "a"}
                {"timestamp": 200, "input_length": 300, "output_length": 10, "session_id": "b"}
                {"timestamp": 300, "input_length": 200, "output_length": 10, "session_id": "a", "delay": 1000}
                {"timestamp": 400, "input_length": 100, "output_length": 10, "session_id": "b", "delay": 500}
                {"timestamp": 500, "input_length": 100, "output_length": 10, "session_id": "a", "delay": 200}
                """);
        CliRun stats = CliRun.of(Map.of(), "trace-stats", "mooncake:" + trace, "--bucket", "0.1");
        assertEquals(0, stats.exitCode(), stats::toString);
        // not (5 - 1) / 0.5 s = 8 req/s over every timestamp: 2 session starts over 0.2 s
        assertTrue(stats.out().contains(": 5 requests; 2 sessions starting over 0.200 s (mean 5 sessions/s)"),
                stats::toString);
        assertTrue(stats.out().matches("(?s).*turns/session +2 +2\\.5 +2\\.9 +3\\.0 +3 +2\\.5\n.*"), stats::toString);
        assertTrue(stats.out().matches("(?s).*think \\(ms\\) +200 +500\\.0 +900\\.0 +990\\.0 +1000 +566\\.7\n.*"),
                stats::toString);
        // buckets of 0.1 s over the starts (0 and 0.2 s): 1, 0, 1
        assertTrue(stats.out().matches("(?s).*0\\.000 s +1 .*\n +0\\.100 s +0 .*\n +0\\.200 s +1 .*"),
                stats::toString);
        assertFalse(stats.out().contains("0.300 s"), "no bucket for the later turns' timestamps: " + stats.out());
    }

    @Test
    void anSloLimitWithAnUnknownUnitNamesIt() {
        CliRun run = CliRun.of(Map.of(), "token-benchmark", "--slo", "ttft_p99<=500mss");
        assertEquals(2, run.exitCode(), run::toString);
        assertTrue(run.err().contains("SLO term 'ttft_p99<=500mss' in 'ttft_p99<=500mss' has an unknown unit 'mss' "
                + "(units ns, us (µs), ms, s; a bare number is ms)"), run::toString);
    }

    private static JsonNode openLoop(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            return JSON.readTree(files.filter(p -> p.toString().endsWith("_open_loop.json")).findFirst()
                    .orElseThrow().toFile());
        }
    }

    private static Map<String, String> env(SimulatedServer server) {
        return Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k");
    }
}

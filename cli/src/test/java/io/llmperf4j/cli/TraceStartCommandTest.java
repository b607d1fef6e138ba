package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --trace-start S}: a window from the middle of a long trace (AIPerf's --fixed-schedule-start-offset), its
 * first request sent at 0, the same slice in trace-stats, echoed where --trace-duration is, bad values refused.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TraceStartCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * An hour-long trace: two requests at its start, three 300 ms apart at 3000 s, one at 3600 s. Each prompt names
     * its line (AIPerf's text_input, sent as it is).
     */
    private static final String HOUR = """
            {"timestamp": 0, "output_length": 3, "text_input": "line 1"}
            {"timestamp": 1000, "output_length": 3, "text_input": "line 2"}
            {"timestamp": 3000000, "output_length": 3, "text_input": "line 3"}
            {"timestamp": 3000300, "output_length": 3, "text_input": "line 4"}
            {"timestamp": 3000600, "output_length": 3, "text_input": "line 5"}
            {"timestamp": 3600000, "output_length": 3, "text_input": "line 6"}
            """;

    @Test
    void aWindowFromTheMiddleIsReplayedFromZero(@TempDir Path tmp) throws IOException {
        Path trace = Files.writeString(tmp.resolve("hour.jsonl"), HOUR);
        Path out = tmp.resolve("out");
        CliRun run;
        List<String> prompts;
        List<Long> arrivals;
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            // minute 50 for 0.7 s: lines 3, 4 and 5, due at 0, 0.3 and 0.6 s; were they due at 3000 s, a limit of
            // 0.6 s rounded up + 5 s would send none
            run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "x"), "token-benchmark",
                    "--model", "m", "--trace", "mooncake:" + trace, "--trace-start", "3000", "--trace-duration",
                    "0.7", "--timeout", "5", "--no-client-warmup", "--results-dir", out.toString());
            List<JsonNode> bodies = server.bodies();
            prompts = BodyRecordingServer.prompts(bodies);
            arrivals = bodies.stream().map(server::arrivedNanos).toList();
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertEquals(List.of("line 3", "line 4", "line 5"), prompts, run::toString);
        for (int k = 1; k < arrivals.size(); k++) {
            assertTrue(arrivals.get(k) >= arrivals.get(k - 1), "received in trace order");
        }
        String load = "trace replay of mooncake:" + trace + " (3 requests over 0.6 s, speedup 1, from 3000 s for "
                + "0.7 s), mean 3.33 req/s";
        assertTrue(run.err().contains("llmperf4j: load: " + load + "\n"), run::toString);
        assertTrue(run.err().contains("llmperf4j: trace replay: run time limit 6 s = the trace's span (0.6 s, "
                + "rounded up to 1 s) + --timeout 5 s\n"), run::toString);
        JsonNode summary = RunFolder.summary(out);
        assertEquals(load, summary.get("settings").get("metadata").get("llmperf4j_load").asText());
        assertEquals(3, summary.get("settings").get("max_num_completed_requests").asInt());

        JsonNode open;
        try (var files = Files.list(out)) {
            open = JSON.readTree(files.filter(p -> p.toString().endsWith("_open_loop.json")).findFirst()
                    .orElseThrow().toFile());
        }
        assertEquals(3000.0, open.get("trace").get("start_s").asDouble());
        assertEquals(0.7, open.get("trace").get("duration_s").asDouble(), 1e-12);
        assertEquals(0.6, open.get("trace").get("span_s").asDouble(), 1e-12);
        assertEquals(0, open.get("trace").get("requests_not_sent").asInt());

        // each request's intended send (actual send less its lag) is its place in the window, from 0
        List<CSVRecord> rows = RunFolder.csv(out).stream()
                .sorted(Comparator.comparingInt(r -> Integer.parseInt(r.get("prompt_index")))).toList();
        double first = intended(rows.get(0));
        assertEquals(0.3, intended(rows.get(1)) - first, 0.002);
        assertEquals(0.6, intended(rows.get(2)) - first, 0.002);

        // the page, written and rebuilt from the files, in the same words
        for (String page : RunFolder.writtenAndRebuiltPages(out)) {
            assertTrue(page.contains("(3 requests over 0.6 s, speedup 1, from 3000 s for 0.7 s), mean 3.33 req/s"),
                    page);
        }

        // trace-stats of the same slice predicts what the replay sent
        CliRun stats = CliRun.of(Map.of(), "trace-stats", "mooncake:" + trace, "--trace-start", "3000",
                "--trace-duration", "0.7");
        assertEquals(0, stats.exitCode(), stats::toString);
        assertTrue(stats.out().contains(": 3 requests over 0.600 s (mean 3.33 req/s)\n"), stats::toString);
    }

    private static double intended(CSVRecord row) {
        return Double.parseDouble(row.get("start_time_epoch_s")) - Double.parseDouble(row.get("send_lag_s"));
    }

    @Test
    void badStartsAreRefusedInOneLineBeforeAnythingIsSent(@TempDir Path tmp) throws IOException {
        Path trace = Files.writeString(tmp.resolve("hour.jsonl"), HOUR);
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            Map<String, String> env = Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "x");
            CliRun negative = CliRun.of(env, "token-benchmark", "--model", "m", "--trace", "mooncake:" + trace,
                    "--trace-start", "-1", "--no-client-warmup");
            assertEquals(2, negative.exitCode(), negative::toString);
            assertTrue(negative.err().contains("--trace-start must be >= 0 (seconds into the trace, from its first "
                    + "request)"), negative::toString);
            CliRun beyond = CliRun.of(env, "token-benchmark", "--model", "m", "--trace", "mooncake:" + trace,
                    "--trace-start", "3601", "--trace-speedup", "1", "--no-client-warmup");
            assertEquals(2, beyond.exitCode(), beyond::toString);
            assertTrue(beyond.err().contains("--trace-start 3601 is beyond the end of mooncake:" + trace
                    + ", which is 3600 s long (first to last request)"), beyond::toString);
            CliRun noTrace = CliRun.of(env, "token-benchmark", "--model", "m", "--trace-start", "10",
                    "--no-client-warmup");
            assertEquals(2, noTrace.exitCode(), noTrace::toString);
            assertTrue(noTrace.err().contains("--trace-start needs --trace FORMAT:FILE"), noTrace::toString);
            CliRun durationNoTrace = CliRun.of(env, "token-benchmark", "--model", "m", "--trace-duration", "10",
                    "--no-client-warmup");
            assertEquals(2, durationNoTrace.exitCode(), durationNoTrace::toString);
            assertTrue(durationNoTrace.err().contains("--trace-duration needs --trace FORMAT:FILE"),
                    durationNoTrace::toString);
            assertEquals(List.of(), BodyRecordingServer.prompts(server.bodies()));
        }
        CliRun stats = CliRun.of(Map.of(), "trace-stats", "mooncake:" + trace, "--trace-start", "1801",
                "--trace-speedup", "2");
        assertEquals(2, stats.exitCode(), stats::toString);
        assertTrue(stats.err().contains("--trace-start 1801 is beyond the end of mooncake:" + trace + ", which is "
                + "1800 s long (first to last request, after --trace-speedup 2)"), stats::toString);
    }
}

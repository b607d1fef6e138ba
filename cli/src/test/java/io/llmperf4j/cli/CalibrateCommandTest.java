package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** calibrate end to end: the embedded simulator and the real client over a loopback socket, in a small setup. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CalibrateCommandTest {

    @Test
    void reportsTheErrorFloorPerConcurrencyOnStdoutAndInFiles(@TempDir Path dir) throws Exception {
        CliRun run = CliRun.of(Map.of(), "calibrate", "--concurrency", "1,4", "--ttft-ms", "5", "--inter-token-ms",
                "1", "--output-tokens", "8", "--requests", "20", "--warmup-s", "0.3", "--results-dir", dir.toString());
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().startsWith("llmperf4j calibrate: embedded simulator in this process, TTFT 5 ms, 1 ms "
                + "between tokens, 8 tokens per response"), run::toString);
        assertTrue(run.out().contains("concurrency   ok/sent  TTFT p50"), run::toString);
        assertTrue(run.out().lines().anyMatch(l -> l.matches("\\s+1\\s+20/20\\s.*")), run::toString);
        assertTrue(run.out().lines().anyMatch(l -> l.matches("\\s+4\\s+20/20\\s.*")), run::toString);
        assertTrue(run.err().contains("calibration.json, calibration.csv"), run::toString);

        JsonNode doc = JsonMapper.builder().build().readTree(dir.resolve("calibration.json").toFile());
        assertEquals(5.0, doc.at("/settings/ttft_ms").asDouble());
        assertEquals(8, doc.at("/settings/output_tokens").asInt());
        JsonNode levels = doc.get("levels");
        assertEquals(2, levels.size());
        for (int i = 0; i < 2; i++) {
            JsonNode l = levels.get(i);
            assertEquals(i == 0 ? 1 : 4, l.get("concurrency").asInt());
            assertEquals(20, l.get("succeeded").asInt(), l::toString);
            assertEquals(0, l.get("unmatched").asInt(), l::toString);
            assertEquals(20, l.get("ttft_error_samples").asLong(), l::toString);
            assertEquals(20 * 7, l.get("inter_token_error_samples").asLong(), "7 gaps per response: " + l);
            for (String prefix : List.of("ttft_error", "inter_token_error")) {
                double p50 = l.get(prefix + "_p50_ms").asDouble();
                double p99 = l.get(prefix + "_p99_ms").asDouble();
                double max = l.get(prefix + "_max_ms").asDouble();
                assertTrue(0 <= p50 && p50 <= p99 && p99 <= max, prefix + ": " + l);
                assertTrue(max < 5_000, "an error floor, not a timeout: " + l);
            }
            assertTrue(l.get("event_loop_lag_p99_ms").asDouble() >= 0, l::toString);
            assertTrue(l.get("process_cpu_share").asDouble() > 0, l::toString);
            assertTrue(l.get("io_busy_share_max").asDouble() >= 0, l::toString);
            assertTrue(l.get("gc_count").asLong() >= 0, l::toString);
        }
        List<String> csv = Files.readAllLines(dir.resolve("calibration.csv"));
        assertEquals(3, csv.size(), csv::toString);
        assertTrue(csv.get(0).startsWith("concurrency,requests,succeeded,unmatched,ttft_error_samples,"), csv::toString);
        assertTrue(csv.get(2).startsWith("4,20,20,0,20,"), csv::toString);
    }

    @Test
    void aLevelWithFewerRequestsThanStreamsIsLabelledByWhatItReached(@TempDir Path dir) throws Exception {
        CliRun run = CliRun.of(Map.of(), "calibrate", "--concurrency", "2,8", "--ttft-ms", "5", "--inter-token-ms",
                "1", "--output-tokens", "4", "--requests", "4", "--warmup-s", "0", "--results-dir", dir.toString());
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().lines().anyMatch(l -> l.matches("\\s+2\\s+4/4\\s.*")), run::toString);
        assertTrue(run.out().lines().anyMatch(l -> l.matches("\\s+4 of 8\\s+4/4\\s.*")), run::toString);
        assertTrue(run.out().contains("  (at most 4 requests in flight, not 8: the level had 4 requests; --requests 8 "
                + "or more, or 0, measures 8 streams)\n"), run::toString);
        assertEquals(1, run.out().lines().filter(l -> l.contains("at most")).count(), "only the level short of "
                + "streams: " + run);
        assertTrue(run.err().contains("calibrating at concurrency 8 (4 requests after no warmup; at most 4 in "
                + "flight, fewer requests than streams: the row says 4 of 8)"), run::toString);
        JsonNode levels = JsonMapper.builder().build().readTree(dir.resolve("calibration.json").toFile())
                .get("levels");
        assertEquals(8, levels.get(1).get("concurrency").asInt());
        assertEquals(4, levels.get(1).get("max_in_flight").asInt());
        assertEquals(2, levels.get(0).get("max_in_flight").asInt());
        List<String> csv = Files.readAllLines(dir.resolve("calibration.csv"));
        assertTrue(csv.get(0).endsWith(",gc_pause_ms,max_in_flight"), csv::toString);
        assertTrue(csv.get(1).startsWith("2,4,4,") && csv.get(1).endsWith(",2"), csv::toString);
        assertTrue(csv.get(2).startsWith("8,4,4,") && csv.get(2).endsWith(",4"), csv::toString);
    }

    @Test
    void aConcurrencyBelowOneIsOneErrorLine() {
        CliRun.of(Map.of(), "calibrate", "--concurrency", "1,0").assertOneErrorLine(ExitCodes.USAGE,
                "--concurrency-sweep ([1, 0]) must list numbers >= 1");
    }
}

package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.model.Percentiles;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * A capacity search of sessions (--search rate with --turns) judges a level as the run judges it: a session's start
 * from its intended send, its later turns, due at a time the client set, from their actual send. The search judged
 * every turn from its intended send, so a later turn's lag (the client's pace) counted against the server there and
 * not in the run's goodput and --slo verdict. Against the simulator on 127.0.0.1, no prefix cache and 1 ms of prefill per prompt
 * token, so the later turns (their history resent) are the slowest and set the TTFT p99.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionSearchTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aRateLevelOfSessionsJudgesLaterTurnsFromTheirActualSendAsTheRunDoes(@TempDir Path dir) throws Exception {
        CliRun run;
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1))
                .prefillPerPromptToken(Duration.ofMillis(1)).prefixCacheBlocks(0).build())) {
            // one level: 4 sessions/s, 12 requests (4 sessions of 3 turns), an objective every level meets
            run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"), "token-benchmark",
                    "--model", "m", "--turns", "3", "--mean-input-tokens", "40", "--stddev-input-tokens", "0",
                    "--mean-output-tokens", "3", "--stddev-output-tokens", "0", "--max-num-completed-requests", "12",
                    "--slo", "ttft_p99<=30s",
                    "--search", "rate", "--arrival", "constant", "--search-min", "4", "--search-max", "4",
                    "--search-level-max", "12", "--search-no-repeat", "--results-dir", dir.toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode level = only(dir, "_search.json").get("levels").get(0);
        assertEquals(12, level.get("samples").asInt(), level::toString);
        // the level judged as the run judges it: a session's start (turn 0) from its intended send, TTFT plus its
        // send lag; a later turn from its actual send, its TTFT alone (the CSV has both to the nanosecond)
        List<CSVRecord> rows = RunFolder.csv(dir.resolve(level.get("results_dir").asText()));
        assertEquals(12, rows.size());
        double[] runsRule = rows.stream().mapToDouble(r -> nanos(r.get("ttft_s"))
                + (r.get("turn").equals("0") ? nanos(r.get("send_lag_s")) : 0)).sorted().toArray();
        double[] everyTurnFromIntended = rows.stream().mapToDouble(r -> nanos(r.get("ttft_s"))
                + nanos(r.get("send_lag_s"))).sorted().toArray();
        JsonNode objective = level.get("objectives").get(0);
        assertEquals("ttft_p99<=30000ms", objective.get("objective").asText(), level::toString);
        double estimate = objective.get("estimate").asDouble();
        assertEquals(Percentiles.ofSorted(runsRule, 99) / 1e6, estimate, 1e-9, level::toString);
        // the later turns (their history resent: the slowest, so they set the p99) went out after they were due:
        // the old rule, every turn from its intended send, gave another estimate
        assertNotEquals(Percentiles.ofSorted(everyTurnFromIntended, 99) / 1e6, estimate, rows::toString);
    }

    /** A CSV duration in seconds (nine decimals) as nanoseconds; empty is 0. */
    private static long nanos(String seconds) {
        return seconds.isEmpty() ? 0 : new BigDecimal(seconds).movePointRight(9).longValueExact();
    }

    private static JsonNode only(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> found = files.filter(f -> f.getFileName().toString().endsWith(suffix)).toList();
            assertEquals(1, found.size(), found::toString);
            return JSON.readTree(found.get(0).toFile());
        }
    }
}

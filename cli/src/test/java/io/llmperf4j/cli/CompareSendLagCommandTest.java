package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.model.Percentiles;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * compare of two real open-loop runs, one overloaded: both offer 20 req/s with at most 4 in flight; the baseline's
 * server answers 20 tokens in ~60 ms (4 in flight carry ~65 req/s), the candidate's in ~420 ms (~9.5 req/s), so the
 * candidate's arrivals queue behind its cap and go out late. Its servers run 8 sequences at once, so TTFT from the
 * actual send stays the server's ~20 ms on both sides: only the send lag and the TTFT from the intended send show
 * the overload. Before compare read the send lag it printed neither, {@code ttft_from_intended_p90} was no rule, and
 * {@code ttft_p90>+10%} passed.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CompareSendLagCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;
    static Path fast;
    static Path overloaded;

    @BeforeAll
    static void runBoth() {
        fast = openLoop(Duration.ofMillis(2), "fast");
        overloaded = openLoop(Duration.ofMillis(20), "overloaded");
    }

    private static Path openLoop(Duration interTokenDelay, String name) {
        Path dir = tmp.resolve(name);
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(20)).interTokenDelay(interTokenDelay).maxConcurrentSequences(8)
                .build())) {
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                    "token-benchmark", "--model", "m", "--mean-input-tokens", "40", "--stddev-input-tokens", "0",
                    "--mean-output-tokens", "20", "--stddev-output-tokens", "0", "--request-rate", "20",
                    "--arrival", "constant", "--max-concurrency", "4", "--duration", "2", "--seed", "71",
                    "--results-dir", dir.toString());
            assertEquals(0, run.exitCode(), run::toString);
        }
        return dir;
    }

    @Test
    void showsTheSendLagAndTheTtftFromTheIntendedSendAndGatesOnIt() throws IOException {
        CliRun run = CliRun.of(Map.of(), "compare", fast.toString(), overloaded.toString(), "--fail-if",
                "ttft_from_intended_p90>+10%,send_lag_p90>+100ms");
        assertEquals(3, run.exitCode(), run::toString);
        String out = run.out();
        // the rows, with the values of the journal: send_lag_nanos + ttft_nanos, the one percentile definition
        for (Path side : List.of(fast, overloaded)) {
            String value = String.format(Locale.ROOT, "%.3f", Percentiles.of(intendedTtftMs(side), 90));
            assertTrue(out.lines().anyMatch(l -> l.startsWith("TTFT (from intended send)   p90") && l.contains(value)),
                    () -> value + " in " + run);
        }
        assertTrue(out.lines().anyMatch(l -> l.startsWith("Send lag                    p90")), run::toString);
        assertTrue(out.lines().anyMatch(l -> l.startsWith("E2E (from intended send)    p99")), run::toString);
        // the line saying the queueing is hidden from TTFT, and the verdicts on the new keys
        assertTrue(out.contains("send lag differs: p90 "), run::toString);
        assertTrue(out.contains("the candidate's requests went out later than scheduled"), run::toString);
        assertTrue(out.contains("FAIL ttft_from_intended_p90>+10%"), run::toString);
        assertTrue(out.contains("FAIL send_lag_p90>+100ms"), run::toString);
    }

    /** QA's gate: before, it passed (TTFT p90 from the actual send fell) while users waited many times longer. */
    @Test
    void aTtftRuleOnOpenLoopsJudgesFromTheIntendedSend() {
        CliRun run = CliRun.of(Map.of(), "compare", fast.toString(), overloaded.toString(), "--fail-if",
                "ttft_p90>+10%,ttft_p99>+10%");
        assertEquals(3, run.exitCode(), run::toString);
        assertTrue(run.out().contains("FAIL ttft_p90>+10%: TTFT (from intended send) p90 changed by +"), run::toString);
        assertTrue(run.out().contains("judged from the intended send, as goodput and the SLO verdict judge a "
                + "scheduled run: from the actual send (the TTFT row) it changed by "), run::toString);
    }

    @Test
    void aRunAgainstItselfHasNoSendLagLine() {
        CliRun run = CliRun.of(Map.of(), "compare", overloaded.toString(), overloaded.toString());
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("Send lag"), run::toString);
        assertFalse(run.out().contains("send lag differs"), run::toString);
    }

    private static double[] intendedTtftMs(Path dir) throws IOException {
        List<Double> values = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("requests.jsonl"))) {
            JsonNode r = JSON.readTree(line);
            if (!r.path("failure").isNull() || r.path("ttft_nanos").asLong(-1) < 0) continue;
            values.add((r.get("send_lag_nanos").asLong() + r.get("ttft_nanos").asLong()) / 1e6);
        }
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }
}

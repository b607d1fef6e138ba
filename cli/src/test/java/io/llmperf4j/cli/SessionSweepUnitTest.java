package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rate sweep of sessions (--turns) starts sessions at each level's rate, as its load line says ("rate sweep 2,4
 * sessions/s"): its table's header and its --slo answer named that rate req/s, beside a req/s column of some three
 * times as many requests (turns) a second. Against the simulator on 127.0.0.1.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionSweepUnitTest {

    /**
     * A rate sweep 2,4 of 3-turn sessions (6 requests a level, constant arrivals) against the simulator, with
     * {@code extra} flags, into {@code dir}: the run the session-sweep tests read.
     */
    static CliRun sweepOfSessions(Path dir, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--turns", "3",
                "--mean-input-tokens", "40", "--stddev-input-tokens", "0", "--mean-output-tokens", "3",
                "--stddev-output-tokens", "0", "--max-num-completed-requests", "6", "--rate-sweep", "2,4", "--arrival",
                "constant", "--sleep-between", "0", "--no-server-metrics", "--no-client-warmup", "--results-dir",
                dir.toString()));
        args.addAll(List.of(extra));
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)).build())) {
            return CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                    args.toArray(String[]::new));
        }
    }

    @Test
    void aRateSweepOfSessionsNamesItsLevelsInSessionsPerSecond(@TempDir Path dir) throws Exception {
        CliRun run = sweepOfSessions(dir, "--slo", "ttft_p99<=30s");
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("\nrate (sessions/s)  ok/total  success  output tok/s  req/s  "), run::toString);
        assertTrue(run.out().contains("SLO met at every level, up to rate 4 sessions/s"), run::toString);
        assertFalse(run.out().contains("rate (req/s)") || run.out().contains("up to rate 4 req/s"), run::toString);
        JsonNode sweep = RunFolder.sweep(dir);
        // the files say the levels' unit as the console does (the page, compare and iteration files read both)
        assertEquals("sessions/s", sweep.get("load_unit").asText(), sweep::toString);
        assertTrue(sweep.toString().contains("SLO met at every level, up to rate 4 sessions/s"), sweep::toString);
    }
}

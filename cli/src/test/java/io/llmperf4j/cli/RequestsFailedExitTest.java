package io.llmperf4j.cli;

import io.llmperf4j.server.FaultKind;
import io.llmperf4j.server.FaultPlan;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A run whose requests failed exits 4 with the server's own messages; --max-error-rate sets the bar for CI. */
class RequestsFailedExitTest {
    private static CliRun run(SimulatedServer server, String key, Path dir, String... extra) {
        String[] base = {"token-benchmark", "--model", "m", "--max-num-completed-requests", "20",
                "--num-concurrent-requests", "2", "--mean-input-tokens", "60", "--stddev-input-tokens", "0",
                "--mean-output-tokens", "5", "--stddev-output-tokens", "0", "--no-client-warmup",
                "--results-dir", dir.toString()};
        String[] args = new String[base.length + extra.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", key), args);
    }

    @Test
    void everyRequestFailingExitsFourWithTheServersMessage(@TempDir Path dir) throws Exception {
        // the pre-run request (the server's first) passes; every request of the run is refused
        List<FaultKind> kinds = new ArrayList<>(List.of(FaultKind.NONE));
        kinds.addAll(Collections.nCopies(20, FaultKind.HTTP_401));
        SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(1))
                .interTokenDelay(Duration.ZERO).faultPlan(FaultPlan.sequence(kinds)).build();
        try (SimulatedServer server = SimulatedServer.start(config)) {
            CliRun run = run(server, "wrong-key", dir);
            assertEquals(4, run.exitCode(), run::toString);
            assertTrue(run.err().contains("llmperf4j: the run failed: every request failed (20 of 20):\n"
                    + "  HTTP_STATUS x20, the server said:\n"), run::toString);
            assertTrue(run.err().contains("20x 401 Simulated fault: invalid API key."), run::toString);
            assertFalse(run.toString().contains("wrong-key"), "the key is never printed");
            // the warning blames the configuration, not the load
            assertTrue(run.toString().contains("check the configuration (API key, model id"), run::toString);
            assertFalse(run.toString().contains("may not hold this load"), run::toString);
        }
    }

    /** Stalled streams: the pre-run request (the server's first) passes, every later one stops for a minute. */
    private static SimulatedServer stalling(int requests) throws Exception {
        List<FaultKind> kinds = new ArrayList<>(List.of(FaultKind.NONE));
        kinds.addAll(Collections.nCopies(requests, FaultKind.STALL));
        return SimulatedServer.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(1))
                .interTokenDelay(Duration.ZERO)
                .faultPlan(FaultPlan.sequence(kinds).withStallDuration(Duration.ofSeconds(60))).build());
    }

    @Test
    void requestsCancelledAtTheTimeoutAreTheClientsDoingNotTheServers(@TempDir Path dir) throws Exception {
        try (SimulatedServer server = stalling(40)) {
            CliRun run = run(server, "k", dir, "--timeout", "1");
            assertEquals(4, run.exitCode(), run::toString);
            assertTrue(run.err().contains("llmperf4j: the run failed: every request failed (2 of 2):\n"
                    + "  CANCELLED x2, the client cancelled them at --timeout (in flight when the run ended):\n"
                    + "    2x cut mid-answer, after "), run::toString); // streams stalled after a few events
            assertFalse(run.err().contains("the server said"), run::toString);
        }
    }

    @Test
    void idleTimeoutsThatDifferOnlyInTheirMillisecondsAreOneLine(@TempDir Path dir) throws Exception {
        try (SimulatedServer server = stalling(40)) {
            CliRun run = run(server, "k", dir, "--idle-timeout", "0.2", "--max-num-completed-requests", "6");
            assertEquals(4, run.exitCode(), run::toString);
            List<String> lines = run.err().lines().dropWhile(l -> !l.startsWith("llmperf4j: the run failed")).toList();
            assertEquals("llmperf4j: the run failed: every request failed (6 of 6):", lines.get(0), run::toString);
            assertEquals("  IDLE_TIMEOUT x6, the client gave up at --idle-timeout:", lines.get(1), run::toString);
            // one line whatever the milliseconds were (200, 201, ...): "6x no bytes from ... for 200-203 ms (...)"
            assertTrue(lines.get(2).matches("    6x no bytes from 127\\.0\\.0\\.1:" + server.port() + " for \\d+(-\\d+)? "
                    + "ms \\(idle timeout 200 ms\\) while streaming, after 3 events"), run::toString);
            assertEquals(3, lines.size(), run::toString);
        }
    }

    @Test
    void theRequestsFailedWarningAccountsForEveryFailureJudgingInStreamErrorsByTheirCode(@TempDir Path dir)
            throws Exception {
        // QA: "8 of 30 requests failed (5 HTTP_STATUS, 2 ERROR_IN_STREAM, 1 CONNECTION_CLOSED): 3 point at the
        // configuration and 3 at capacity"; the simulator's error events carry code 500
        List<FaultKind> kinds = new ArrayList<>(List.of(FaultKind.NONE, FaultKind.HTTP_400, FaultKind.HTTP_400,
                FaultKind.HTTP_404, FaultKind.HTTP_500, FaultKind.HTTP_503, FaultKind.ERROR_EVENT,
                FaultKind.ERROR_EVENT, FaultKind.DROP_MID_STREAM));
        kinds.addAll(Collections.nCopies(12, FaultKind.NONE)); // the 21 of the pre-run request and the run's 20
        SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(1))
                .interTokenDelay(Duration.ZERO).faultPlan(FaultPlan.sequence(kinds)).build();
        try (SimulatedServer server = SimulatedServer.start(config)) {
            CliRun run = run(server, "k", dir, "--max-error-rate", "50");
            assertEquals(0, run.exitCode(), run::toString);
            // each server-worded kind names its most common status and message
            assertTrue(run.toString().contains("[REQUESTS_FAILED] 8 of 20 requests failed (5 HTTP_STATUS: 2x 400 "
                    + "Simulated fault: the request was rejected as invalid, 2 ERROR_IN_STREAM: 2x 500 Simulated "
                    + "fault: the model failed during generation, 1 CONNECTION_CLOSED): 3 point at the configuration "
                    + "and 5 at capacity: "), run::toString);
        }
    }

    @Test
    void aWrongKeyIsRefusedBeforeTheRunWithTheServersMessage(@TempDir Path dir) throws Exception {
        SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(1))
                .interTokenDelay(Duration.ZERO).apiKey("right-key").build();
        try (SimulatedServer server = SimulatedServer.start(config)) {
            CliRun run = run(server, "wrong-key", dir);
            assertEquals(1, run.exitCode(), run::toString);
            assertTrue(run.err().contains("the server refused the pre-run request (one request of one token) with "
                    + "HTTP 401: Incorrect API key provided; check the API key in OPENAI_API_KEY"), run::toString);
            assertFalse(run.toString().contains("wrong-key"), "the key is never printed");
        }
    }

    @Test
    void maxErrorRateFailsARunAboveIt(@TempDir Path dir) throws Exception {
        SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(1))
                .interTokenDelay(Duration.ZERO)
                .faultPlan(FaultPlan.random(0.5, Map.of(FaultKind.HTTP_503, 1.0), 3)).build();
        try (SimulatedServer server = SimulatedServer.start(config)) {
            CliRun strict = run(server, "k", dir.resolve("strict"), "--max-error-rate", "5");
            assertEquals(4, strict.exitCode(), strict::toString);
            assertTrue(strict.err().contains("above --max-error-rate 5%)"), strict::toString);
            assertTrue(strict.err().contains("x 503 "), strict::toString);
            assertTrue(strict.toString().contains("may not hold this load"), strict::toString);

            CliRun lenient = run(server, "k", dir.resolve("lenient"), "--max-error-rate", "99.5");
            assertEquals(0, lenient.exitCode(), lenient::toString);

            CliRun none = run(server, "k", dir.resolve("none"));
            assertEquals(0, none.exitCode(), "without the flag only a run where every request failed exits 4");
        }
    }

    @Test
    void maxErrorRateOutsideZeroToHundredIsAUsageError(@TempDir Path dir) throws Exception {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder().build())) {
            CliRun run = run(server, "k", dir, "--max-error-rate", "150");
            assertEquals(2, run.exitCode(), run::toString);
            assertTrue(run.err().contains("--max-error-rate: expected a percentage from 0 to 100, got 150.0"),
                    run::toString);
        }
    }

    @Test
    void helpListsExitCodeFour() {
        CliRun run = CliRun.of(Map.of(), "token-benchmark", "--help");
        assertTrue(run.out().contains("Every request failed, or more than --max-error-rate percent did"), run::toString);
        assertTrue(run.out().contains("--max-error-rate=PERCENT"), run::toString);
    }
}

package io.llmperf4j.cli;

import io.llmperf4j.server.SimulatedServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static io.llmperf4j.cli.FastSimulator.env;

/**
 * Against the simulator: a sessions run (--turns) cut before any later turn is still described as sessions, since
 * what ran says so, not its records (which look like single requests); and one session, one turn not sent, are said
 * in the singular; a trace's delay that no later turn would use is refused, not ignored.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionRunsCutEarlyTest {

    @Test
    void anOpenLoopOfSessionsCutBeforeAnyLaterTurnStillCountsSessions(@TempDir Path tmp) {
        CliRun run;
        try (SimulatedServer server = FastSimulator.start()) {
            // a think time of 30 s, a run limit of 1 s: only first turns are sent
            run = CliRun.of(env(server), "token-benchmark", "--model", "sim", "--turns", "fixed:3", "--think-time",
                    "fixed:30000", "--request-rate", "20", "--max-num-completed-requests", "12", "--timeout", "1",
                    "--no-client-warmup", "--results-dir",
                    tmp.resolve("out").toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("Open loop: offered 20 sessions/s, poisson session arrivals (seed "),
                run::toString);
        Matcher line = Pattern.compile("\nSessions: \\d+ scheduled, (\\d+) started, \\d+ not started; "
                + "\\d+ requests? \\(turns?\\) sent, (\\d+) not sent;").matcher(run.out());
        assertTrue(line.find(), run::toString);
        // 4 sessions of 3 turns (12 requests): each session started sent its first turn, its other 2 were cut by
        // the 1 s limit
        int started = Integer.parseInt(line.group(1));
        assertEquals(2 * started, Integer.parseInt(line.group(2)), run::toString);
        assertTrue(run.out().contains("Warning: " + 2 * started + " turns of the sessions in progress were not sent: "
                + "the run's time limit came first (raise --timeout)"), run::toString);
        assertFalse(run.out().contains("\nArrivals: "), run::toString);
        assertFalse(run.out().contains(" req/s, poisson arrivals"), run::toString);
    }

    @Test
    void oneSessionAndOneTurnNotSentAreSaidInTheSingular(@TempDir Path tmp) {
        CliRun run;
        try (SimulatedServer server = FastSimulator.start()) {
            // one session of 2 turns; its 30 s think time outlasts the 1 s run limit: 1 turn sent, 1 not sent
            run = CliRun.of(env(server), "token-benchmark", "--model", "sim", "--turns", "fixed:2", "--think-time",
                    "fixed:30000", "--num-concurrent-requests", "1", "--max-num-completed-requests", "2",
                    "--timeout", "1", "--no-client-warmup", "--results-dir", tmp.resolve("out").toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("Sessions: 1 started; 1 request (turn) sent, 1 not sent\n"), run::toString);
        assertTrue(run.out().contains("Warning: 1 turn of the sessions in progress was not sent: the run's time "
                + "limit came first (raise --timeout)\n"), run::toString);
        assertTrue(run.out().contains("Sessions: 1 session, mean TTFT by turn "), run::toString);
    }

    @Test
    void aTraceDelayOutsideASessionsLaterTurnIsAOneLineUsageError(@TempDir Path tmp) throws java.io.IOException {
        Path noSession = java.nio.file.Files.writeString(tmp.resolve("d.jsonl"), """
                {"timestamp": 0, "input_length": 10, "output_length": 2, "delay": 50}
                """);
        CliRun.of(Map.of(), "trace-stats", "mooncake:" + noSession).assertOneErrorLine(2,
                "d.jsonl, line 1: \"delay\" without \"session_id\"");
        Path firstTurn = java.nio.file.Files.writeString(tmp.resolve("f.jsonl"), """
                {"timestamp": 0, "input_length": 10, "output_length": 2, "session_id": "a", "delay": 50}
                """);
        CliRun.of(Map.of(), "token-benchmark", "--model", "sim", "--simulator", "--trace", "mooncake:" + firstTurn,
                "--no-client-warmup", "--results-dir", tmp.resolve("out").toString()).assertOneErrorLine(2,
                "f.jsonl, line 1: \"delay\" on the first turn of session \"a\"");
    }
}

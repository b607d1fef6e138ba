package io.llmperf4j.cli;

import io.llmperf4j.server.SimulatedServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static io.llmperf4j.cli.FastSimulator.env;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pre-run warning of an open loop of sessions against its --timeout counts arrivals as the schedule uses them
 * (the sessions' first turns; later turns follow replies and think times), against the simulator on 127.0.0.1 (the
 * sessions QA's run10: 16 turns taken as 16 arrivals warned "10 of its 16 arrivals would not be sent").
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionScheduleTimeoutTest {

    @Test
    void sessionsThatAllStartWithinTheTimeoutAreNotWarnedAsArrivalsCut(@TempDir Path tmp) {
        CliRun run;
        try (SimulatedServer server = FastSimulator.start()) {
            // 4 sessions of 4 turns at 2 sessions/s: they start at 0, 0.5, 1 and 1.5 s, all within 3 s
            run = CliRun.of(env(server), "token-benchmark", "--model", "sim", "--turns", "fixed:4",
                    "--request-rate", "2", "--arrival", "constant", "--max-num-completed-requests", "16",
                    "--timeout", "3", "--no-client-warmup", "--no-server-metrics", "--results-dir",
                    tmp.resolve("out").toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertFalse(run.err().contains("warning: the schedule"), run::toString);
        assertFalse(run.err().contains("arrivals would not be sent"), run::toString);
    }

    @Test
    void thinkTimesThatOutlastTheTimeoutAreCountedAsTurnsCut(@TempDir Path tmp) {
        CliRun run;
        try (SimulatedServer server = FastSimulator.start()) {
            // 2 sessions of 2 turns at 2 sessions/s (starts 0 and 0.5 s), 5 s of think time before each second turn
            run = CliRun.of(env(server), "token-benchmark", "--model", "sim", "--turns", "fixed:2",
                    "--think-time", "fixed:5000", "--request-rate", "2", "--arrival", "constant",
                    "--max-num-completed-requests", "4", "--timeout", "1", "--no-client-warmup",
                    "--no-server-metrics", "--results-dir", tmp.resolve("out").toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.err().contains("llmperf4j: warning: the schedule's 2 sessions start by 0.5 s, within --timeout "
                + "1 s, but their think times alone put 2 of their 4 turns after it: at least 2 turns would not be "
                + "sent (their replies' time adds to it); raise --timeout to run them all\n"), run::toString);
    }
}

package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rate sweep of sessions (--turns) names each level's rate in sessions/s in its per-level lines too, as its table
 * and --slo answer do: the "done" line said "rate 2 req/s done: ... 5.9 req/s", a rate of sessions beside the
 * requests (turns) a second it completed. Against the simulator on 127.0.0.1.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionSweepLevelLineTest {

    @Test
    void eachLevelsDoneLineNamesItsRateInSessionsPerSecond(@TempDir Path dir) throws Exception {
        CliRun run = SessionSweepUnitTest.sweepOfSessions(dir, "--slo", "ttft_p99<=1ms");
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.err().contains("llmperf4j: rate 2 sessions/s done: 6/6 ok, "), run::toString);
        assertTrue(run.err().contains("llmperf4j: rate 4 sessions/s done: 6/6 ok, "), run::toString);
        // the progress line, and the --slo lines that name where an objective was missed (no TTFT is under 1 ms)
        assertTrue(run.err().contains("llmperf4j: [rate 2 sessions/s] "), run::toString);
        assertTrue(run.out().contains("\n  rate 2 sessions/s missed ttft_p99<=1ms"), run::toString);
        assertFalse(run.err().contains("req/s done") || run.err().contains("[rate 2 req/s]"), run::toString);
        assertFalse(run.out().contains("rate 2 req/s missed") || run.out().contains("rate 4 req/s missed"),
                run::toString);
        // the sweep's verdict lines, on the console and in its file (6 successes: too few to judge a level)
        assertTrue(run.out().contains("\nnot judged: rate 2 sessions/s: only 6 successful requests"), run::toString);
        assertFalse(run.out().contains("rate 2 req/s") || run.out().contains("rate 4 req/s"), run::toString);
        // (the file's level labels and its verdict's warnings are the sweep file's own: not changed here)
        String lines = RunFolder.sweep(dir).get("verdict").get("lines").toString();
        assertTrue(lines.contains("not judged: rate 4 sessions/s: "), lines);
        assertFalse(lines.contains("req/s"), lines);
    }
}

package io.llmperf4j.cli;

import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A capacity search of synthetic sessions (--turns) with --save-workload saves the first level's sessions only: its
 * console line said "(6 requests; replay with --workload)", as if a replay sent what the search's levels sent, while
 * every level that sends more than them draws sessions of its own. The line now says which sessions are in the file.
 * Against the simulator on 127.0.0.1.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionSearchSavedWorkloadTest {

    @Test
    void theLineSaysTheLevelsOwnSessionsAreNotInTheFile(@TempDir Path dir) throws Exception {
        Path manifest = dir.resolve("sessions.jsonl");
        CliRun run;
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)).build())) {
            run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"), "token-benchmark",
                    "--model", "m", "--turns", "3", "--mean-input-tokens", "40", "--stddev-input-tokens", "0",
                    "--mean-output-tokens", "3", "--stddev-output-tokens", "0", "--max-num-completed-requests", "6",
                    "--slo", "ttft_p99<=30s", "--search", "rate", "--arrival", "constant", "--search-min", "20",
                    "--search-max", "20", "--search-level-max", "12", "--search-no-repeat", "--no-server-metrics",
                    "--save-workload", manifest.toString(), "--results-dir", dir.resolve("out").toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(Files.isRegularFile(manifest));
        assertTrue(run.err().contains("Workload written to " + manifest.toAbsolutePath() + " (6 requests, the first "
                + "level's sessions: a level that sends more than them (the search's levels limited by time or by "
                + "more requests) draws sessions of its own from --seed, which are not in the file (a replay starts "
                + "these again, s0~1, ...); replay with --workload)"), run::toString);
    }
}

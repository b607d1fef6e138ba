package io.llmperf4j.cli;

import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** compare over two real runs whose servers differ only in time to first token. */
class CompareCommandTest {
    @TempDir
    static Path tmp;
    static Path fast;
    static Path slow;

    @BeforeAll
    static void runBoth() {
        fast = benchmark(Duration.ofMillis(5), "fast");
        slow = benchmark(Duration.ofMillis(60), "slow");
    }

    private static Path benchmark(Duration ttft, String name) {
        Path dir = tmp.resolve(name);
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder().timeToFirstToken(ttft)
                .interTokenDelay(Duration.ofMillis(1)).build())) {
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                    "token-benchmark", "--model", "m", "--max-num-completed-requests", "40",
                    "--num-concurrent-requests", "4", "--mean-output-tokens", "10", "--stddev-output-tokens", "2",
                    "--results-dir", dir.toString());
            assertEquals(0, run.exitCode(), run::toString);
        }
        return dir;
    }

    @Test
    void aTtftRegressionCrossesTheThresholdAndExits3() {
        CliRun run = CliRun.of(Map.of(), "compare", fast.toString(), slow.toString(), "--fail-if", "ttft_p50>+10%");
        assertEquals(3, run.exitCode(), run::toString);
        assertTrue(run.out().contains("FAIL ttft_p50>+10%"), run::toString);
    }

    @Test
    void anImprovementPassesTheSameRule() {
        CliRun run = CliRun.of(Map.of(), "compare", slow.toString(), fast.toString(), "--fail-if", "ttft_p50>+10%");
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("pass ttft_p50>+10%"), run::toString);
    }

    @Test
    void aMalformedRuleIsAUsageError() {
        CliRun run = CliRun.of(Map.of(), "compare", fast.toString(), slow.toString(), "--fail-if", "ttft_p50=>3");
        assertEquals(2, run.exitCode(), run::toString);
        assertTrue(run.err().startsWith("llmperf4j: --fail-if:"), run::toString);
    }

    @Test
    void aMissingFolderIsAUsageError() {
        CliRun run = CliRun.of(Map.of(), "compare", fast.toString(), tmp.resolve("nope").toString());
        assertEquals(2, run.exitCode(), run::toString);
        assertTrue(run.err().contains("does not exist"), run::toString);
    }
}

package io.llmperf4j.cli;

import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
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
 * A simulator run's pages say whose figures they are, whatever page it is: the sweep's, the capacity search's, the
 * comparison of models' and the page of iterations, as the single run's page does since the summaries recorded
 * {@code settings.simulated}; and {@code compare} of a simulator run with a real endpoint's names {@code simulated}
 * among the settings that differ. A run against a real endpoint (here the simulator served on 127.0.0.1 behind
 * OPENAI_API_BASE, which llmperf4j cannot tell from a real server) has no line.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SimulatorMarkPagesTest {
    private static final String LINE = "<strong>Simulated: these figures are llmperf4j's embedded simulated "
            + "server's, not a real endpoint's.</strong>";

    private static CliRun bench(Map<String, String> env, Path dir, String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--no-client-warmup",
                "--max-num-completed-requests", "2", "--num-concurrent-requests", "1", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "3", "--stddev-output-tokens", "0",
                "--no-server-metrics", "--results-dir", dir.toString()));
        args.addAll(List.of(extra));
        CliRun run = CliRun.of(env, args.toArray(String[]::new));
        assertEquals(0, run.exitCode(), run::toString);
        return run;
    }

    @Test
    void sweepSearchComparisonAndIterationsPagesOfASimulatorRunSaySo(@TempDir Path tmp) throws IOException {
        Path sweep = tmp.resolve("sweep");
        bench(Map.of(), sweep, "--model", "m", "--simulator", "--concurrency-sweep", "1,2", "--sleep-between", "0");
        assertTrue(page(sweep, "m_40_3_report.html").contains(LINE), "sweep page");

        Path search = tmp.resolve("search");
        bench(Map.of(), search, "--model", "m", "--simulator", "--slo", "ttft_p99<=30s", "--search", "concurrency",
                "--search-min", "1", "--search-max", "1", "--search-level-max", "2", "--search-no-repeat");
        assertTrue(page(search, "m_40_3_search.html").contains(LINE), "search page");

        Path models = tmp.resolve("models");
        bench(Map.of(), models, "--model", "a,b", "--simulator");
        assertTrue(page(models, "comparison_report.html").contains(LINE), "comparison page");

        Path iterations = tmp.resolve("iterations");
        bench(Map.of(), iterations, "--model", "m", "--simulator", "--iterations", "1", "--warmup-iterations", "0",
                "--iteration-time", "1");
        CliRun report = CliRun.of(Map.of(), "report", iterations.toString());
        assertEquals(0, report.exitCode(), report::toString);
        assertTrue(page(iterations, "m_40_3_report.html").contains(LINE), "iterations page");

        // the pages rebuilt from the folders alone say it too
        for (Path dir : List.of(sweep, models)) {
            CliRun again = CliRun.of(Map.of(), "report", dir.toString());
            assertEquals(0, again.exitCode(), again::toString);
        }
        assertTrue(page(sweep, "m_40_3_report.html").contains(LINE), "sweep page rebuilt");
        assertTrue(page(models, "comparison_report.html").contains(LINE), "comparison page rebuilt");
    }

    @Test
    void compareOfASimulatorRunWithARealEndpointsListsSimulated(@TempDir Path tmp) throws IOException {
        Path simulated = tmp.resolve("simulated");
        bench(Map.of(), simulated, "--model", "m", "--simulator");
        Path real = tmp.resolve("real");
        Path realSweep = tmp.resolve("real-sweep");
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(2)).interTokenDelay(Duration.ofMillis(1)).build())) {
            Map<String, String> env = Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k");
            bench(env, real, "--model", "m");
            bench(env, realSweep, "--model", "m", "--concurrency-sweep", "1,2", "--sleep-between", "0");
        }
        CliRun compare = CliRun.of(Map.of(), "compare", simulated.toString(), real.toString());
        assertEquals(0, compare.exitCode(), compare::toString);
        assertTrue(compare.err().contains("\n  differs: simulated: yes (llmperf4j's embedded simulated server) vs no "
                + "(a real endpoint)\n"), compare::toString);
        CliRun same = CliRun.of(Map.of(), "compare", real.toString(), real.toString());
        assertFalse(same.err().contains("simulated"), same::toString);
        assertFalse(page(realSweep, "m_40_3_report.html").contains("Simulated:"), "a real endpoint's sweep page");
    }

    private static String page(Path dir, String name) throws IOException {
        return Files.readString(dir.resolve(name));
    }
}

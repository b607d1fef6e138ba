package io.llmperf4j.cli;

import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * compare over folders of real runs with --iterations against the embedded server: two whose servers differ in time
 * to first token (5 ms against 60 ms), one more with another token shape and iteration layout, and two sweeps of two
 * measured iterations a level.
 */
class CompareIterationsCommandTest {
    @TempDir
    static Path tmp;
    static Path fast;
    static Path slow;
    static Path otherShape;
    static Path sweepA;
    static Path sweepB;

    @BeforeAll
    static void runAll() {
        fast = benchmark("fast", Duration.ofMillis(5), "--iterations", "3", "--iteration-time", "1",
                "--num-concurrent-requests", "2");
        slow = benchmark("slow", Duration.ofMillis(60), "--iterations", "3", "--iteration-time", "1",
                "--num-concurrent-requests", "2");
        otherShape = benchmark("other", Duration.ofMillis(5), "--iterations", "2", "--iteration-time", "0.5",
                "--forks", "2", "--num-concurrent-requests", "2", "--mean-output-tokens", "20");
        sweepA = benchmark("sweep-a", Duration.ofMillis(5), "--iterations", "2", "--iteration-time", "0.5",
                "--concurrency-sweep", "1,2");
        sweepB = benchmark("sweep-b", Duration.ofMillis(5), "--iterations", "2", "--iteration-time", "0.5",
                "--concurrency-sweep", "1,2");
    }

    private static Path benchmark(String name, Duration ttft, String... load) {
        Path dir = tmp.resolve(name);
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder().timeToFirstToken(ttft)
                .interTokenDelay(Duration.ofMillis(4)).build())) {
            List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--mean-output-tokens",
                    "10", "--stddev-output-tokens", "0", "--warmup-iterations", "0", "--no-client-warmup",
                    "--results-dir", dir.toString()));
            args.addAll(List.of(load)); // the last occurrence wins: --mean-output-tokens 20 overrides
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                    args.toArray(String[]::new));
            assertEquals(0, run.exitCode(), run::toString);
        }
        return dir;
    }

    /** The QA's finding: every latency rule was NOT EVALUATED on iterations, so even an improvement exited 3. */
    @Test
    void aTtftMeanRegressionExits3AndTheImprovementPasses() {
        CliRun worse = CliRun.of(Map.of(), "compare", fast.toString(), slow.toString(), "--fail-if",
                "ttft_mean>+10%");
        assertEquals(3, worse.exitCode(), worse::toString);
        assertTrue(worse.out().contains("concurrency 2: FAIL ttft_mean>+10%: TTFT mean changed by +"), worse::toString);

        CliRun better = CliRun.of(Map.of(), "compare", slow.toString(), fast.toString(), "--fail-if",
                "ttft_mean>+10%,tpot_mean>+50%,output_throughput<-5%,request_throughput<-5%,error_rate>0.01");
        assertEquals(0, better.exitCode(), better::toString);
        for (String rule : List.of("ttft_mean>+10%", "tpot_mean>+50%", "output_throughput<-5%",
                "request_throughput<-5%", "error_rate>0.01")) {
            assertTrue(better.out().contains("concurrency 2: pass " + rule + ": "), rule + ": " + better);
        }
        // three iterations a side: a 99.9 % Welch interval on every mean (whether it excludes 0 depends on the timing)
        assertTrue(better.out().contains("interval: Welch's t on the difference of the means over the measured "
                + "iterations, 99.9 %"), better::toString);
        String ttftRow = better.out().lines().filter(l -> l.startsWith("concurrency 2          TTFT ")).findFirst()
                .orElseThrow(() -> new AssertionError(better.toString()));
        assertTrue(ttftRow.matches(".* mean .*\\[[-+][0-9.]+%, [-+][0-9.]+%\\].* ms"), ttftRow);
        assertFalse(better.out().contains("too few"), better::toString);
    }

    @Test
    void aPercentileRuleIsNotEvaluatedAndTheOutputSaysItFailsTheGate() {
        CliRun run = CliRun.of(Map.of(), "compare", slow.toString(), fast.toString(), "--fail-if",
                "ttft_p90>+10%,output_throughput<-5%");
        assertEquals(3, run.exitCode(), run::toString);
        assertTrue(run.out().contains("concurrency 2: NOT EVALUATED ttft_p90>+10%: iterations keep one row per "
                + "iteration (its means), not per-request values, so no ttft p90: use ttft_mean"), run::toString);
        assertTrue(run.out().endsWith("1 of 2 verdicts NOT EVALUATED: a gate never passes on a rule it could not "
                + "evaluate, so these fail it (exit 3) as a crossed rule does; drop or replace those rules (each line "
                + "says why and what there is instead)\n"), run::toString);
    }

    /** The QA's jmh1 against jmh3: another token shape, forks and iteration time went unmentioned. */
    @Test
    void settingsThatDifferAreNamedAndWhatIsNotRecordedIsSaid() {
        CliRun run = CliRun.of(Map.of(), "compare", fast.toString(), otherShape.toString());
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.err().startsWith("compare: the two ran with different settings; a delta may come from these, "
                + "not from the server alone:\n"
                + "  differs: token shape (means): input 550, output 10 vs input 550, output 20\n"
                + "  differs: iterations: 0 warmup + 3 measurement iterations of 1 s, 1 fork vs 0 warmup + 2 "
                + "measurement iterations of 500 ms, 2 forks\n"
                + "compare: iterations folders record no endpoint, LLM API, tokenizer, prompt mode or sampling "
                + "parameters (nor the token shape's spread): those were not checked\n"), run::toString);

        // two servers (two endpoints), the same settings otherwise: nothing differs that the folders record
        CliRun endpoints = CliRun.of(Map.of(), "compare", fast.toString(), slow.toString());
        assertEquals("compare: iterations folders record no endpoint, LLM API, tokenizer, prompt mode or sampling "
                + "parameters (nor the token shape's spread): those were not checked\n", endpoints.err(),
                endpoints::toString);
    }

    /** The QA's swit/swit2: two measured iterations a level gave zero-width intervals marked significant. */
    @Test
    void twoIterationsALevelGiveNoIntervalAndSaySo() {
        CliRun run = CliRun.of(Map.of(), "compare", sweepA.toString(), sweepB.toString());
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().startsWith("Iterations compared level by level (matched by level): 2 in both\n"),
                run::toString);
        for (String level : List.of("concurrency 1", "concurrency 2")) {
            assertTrue(run.out().contains(level + ": too few measured iterations for an interval (2 and 2; at least 3 "
                    + "a side): no CI, no *"), level + ": " + run);
        }
        assertFalse(run.out().lines().anyMatch(l -> l.startsWith("concurrency") && l.contains("] *")), run::toString);
        assertFalse(run.err().contains("differs"), "the same settings: " + run);
    }
}

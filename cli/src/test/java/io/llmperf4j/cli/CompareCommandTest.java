package io.llmperf4j.cli;

import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * compare over real runs against the embedded server: two whose servers differ only in time to first token, and
 * two more that differ from the fast one in inter-token delay (one token per chunk) or in chunking (4 tokens a
 * chunk, 4 times the delay between chunks: the same per-token pace). The simulator sends each chunk at an absolute
 * due time, so on a loaded machine a late timer sends the chunks it owes at once: gaps of 0 then a long one, which
 * moves an ITL p50 to 0 (seen at load 14) but not a mean (the span of a request's chunks stays the server's). The
 * assertions on ITL values are therefore relations between means with wide margins, and the TTFTs differ 50-fold.
 */
class CompareCommandTest {
    @TempDir
    static Path tmp;
    static Path fast;
    static Path slow;
    static Path slowTokens;
    static Path chunked;

    @BeforeAll
    static void runAll() {
        // delays of several ms: on a busy machine 1-ms timers fire in bursts and gaps collapse to 0
        fast = benchmark(Duration.ofMillis(5), Duration.ofMillis(4), 1, "fast");
        // the first run of the JVM (fast) had TTFT p50 85 ms at load 14: far from 5 ms, so far from 250
        slow = benchmark(Duration.ofMillis(250), Duration.ofMillis(4), 1, "slow");
        slowTokens = benchmark(Duration.ofMillis(5), Duration.ofMillis(12), 1, "slow-tokens");
        chunked = benchmark(Duration.ofMillis(5), Duration.ofMillis(4), 4, "chunked");
    }

    private static Path benchmark(Duration ttft, Duration interTokenDelay, int tokensPerChunk, String name) {
        Path dir = tmp.resolve(name);
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder().timeToFirstToken(ttft)
                .interTokenDelay(interTokenDelay).tokensPerChunk(tokensPerChunk).build())) {
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
    void itlIsComparedFromTheJournalAndAnItlRegressionExits3() {
        CliRun run = CliRun.of(Map.of(), "compare", fast.toString(), slowTokens.toString(), "--fail-if",
                "itl_p90>+10%,ttft_p50>+200%");
        assertEquals(3, run.exitCode(), run::toString);
        assertTrue(run.out().contains("window ") && run.out().contains("from requests.jsonl)"), run::toString);
        // 4 ms against 12 ms between tokens, one token per event: both ITLs follow the server's delay
        double[] perEvent = row(run.out(), "ITL (per event)", "mean");
        assertTrue(perEvent[0] > 0 && perEvent[1] > 2 * perEvent[0], run::toString);
        // one token an event: per token is per event, so its rows are printed once
        assertTrue(run.out().lines().noneMatch(l -> l.matches("ITL \\(per token\\) +p50 .*")), run::toString);
        assertTrue(run.out().contains("ITL (per token) rows left out: every content event carried one token"),
                run::toString);
        // a request's tokens never come faster than the server's pace (on average: a late first token shortens it)
        double[] tpot = row(run.out(), "TPOT", "mean");
        assertTrue(tpot[1] >= 0.75 * 12 && tpot[1] > tpot[0], run::toString);
        assertTrue(run.out().contains("FAIL itl_p90>+10%: ITL (per event) p90 changed by +"), run::toString);
        assertTrue(run.out().contains("pass ttft_p50>+200%"), run::toString);
    }

    @Test
    void chunksOfFourTokensQuadrupleItlPerEventButNotPerToken() {
        CliRun run = CliRun.of(Map.of(), "compare", fast.toString(), chunked.toString(), "--fail-if",
                "itl_mean>+100%,itl_per_token_mean>+100%");
        assertEquals(3, run.exitCode(), run::toString);
        // 4 tokens every 16 ms: per event 16 ms, per token 4 ms, as in the baseline's one token every 4 ms
        double[] perEvent = row(run.out(), "ITL (per event)", "mean");
        double[] perToken = row(run.out(), "ITL (per token)", "mean");
        assertTrue(perEvent[1] > 2 * perToken[1], "an event carries several tokens: " + run);
        assertEquals(perEvent[0], perToken[0], 0.5, "the baseline's carry one: " + run);
        assertTrue(run.out().contains("FAIL itl_mean>+100%"), run::toString);
        assertTrue(run.out().contains("pass itl_per_token_mean>+100%"), run::toString);
    }

    @Test
    void aCsvHasNoEventTimesSoAnItlRuleIsNotEvaluatedAndTheGateFails() throws IOException {
        Path csv;
        try (Stream<Path> files = Files.list(slowTokens)) {
            csv = files.filter(p -> p.getFileName().toString().endsWith("_requests.csv")).findFirst().orElseThrow();
        }
        CliRun run = CliRun.of(Map.of(), "compare", fast.toString(), csv.toString(), "--fail-if", "itl_p90>+10%");
        assertEquals(3, run.exitCode(), "a gate never passes on a rule it could not evaluate: " + run);
        assertTrue(run.out().contains("from the per-request CSV (no event times, so no ITL))"), run::toString);
        assertTrue(run.out().contains("NOT EVALUATED itl_p90>+10%: the candidate has no ITL (per event) p90"),
                run::toString);
    }

    /** Baseline and candidate of one row of the comparison table. */
    private static double[] row(String out, String label, String stat) {
        String prefix = String.format(Locale.ROOT, "%-27s %-5s ", label, stat);
        String line = out.lines().filter(l -> l.startsWith(prefix)).findFirst()
                .orElseThrow(() -> new AssertionError("no row " + prefix + " in\n" + out));
        String[] fields = line.substring(prefix.length()).trim().split("\\s+");
        return new double[] {Double.parseDouble(fields[0]), Double.parseDouble(fields[1])};
    }

    @Test
    void aMalformedRuleIsAUsageError() {
        CliRun run = CliRun.of(Map.of(), "compare", fast.toString(), slow.toString(), "--fail-if", "ttft_p50=>3");
        assertEquals(2, run.exitCode(), run::toString);
        assertTrue(run.err().startsWith("llmperf4j: --fail-if:"), run::toString);
    }

    /** An empty variable in a CI script ({@code --fail-if "$RULES"}) made a gate that passed whatever the runs did. */
    @Test
    void anEmptyRuleListIsAUsageError() {
        for (String empty : List.of("", ",", " , ")) {
            CliRun run = CliRun.of(Map.of(), "compare", fast.toString(), slow.toString(), "--fail-if", empty);
            run.assertOneErrorLine(2, "llmperf4j: --fail-if: no rule in '" + empty + "': a gate without rules passes "
                    + "whatever the runs did (an empty variable in a script?); give at least one, e.g. ttft_p90>+10%, "
                    + "e2e_p99>+500ms or output_throughput<-5%, or leave the option out");
        }
    }

    @Test
    void aMissingFolderIsAUsageError() {
        CliRun run = CliRun.of(Map.of(), "compare", fast.toString(), tmp.resolve("nope").toString());
        assertEquals(2, run.exitCode(), run::toString);
        assertTrue(run.err().contains("does not exist"), run::toString);
    }
}

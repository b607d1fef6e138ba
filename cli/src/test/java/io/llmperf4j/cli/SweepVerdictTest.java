package io.llmperf4j.cli;

import io.llmperf4j.server.FaultKind;
import io.llmperf4j.server.FaultPlan;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sweep's verdict lines, from real sweeps against the simulator: which levels are judged (every request failed,
 * too few successes, fewer requests than the concurrency, a lone level) and how a rate sweep finds its saturation
 * point (achieved against scheduled rate). The simulator's capacity is known: {@code slots} sequences at once, 20
 * tokens of 50 ms + 19 × 10 ms.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class SweepVerdictTest {

    private static SimulatedServer server(int slots, List<FaultKind> faults) {
        return server(slots, faults, 1);
    }

    /** {@code slots} sequences of 20 tokens, {@code faster} times faster than 50 ms + 19 × 10 ms. */
    private static SimulatedServer server(int slots, List<FaultKind> faults, int faster) {
        SimulatorConfig.Builder b = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(50 / faster))
                .interTokenDelay(Duration.ofMillis(10 / faster)).maxConcurrentSequences(slots);
        if (!faults.isEmpty()) b.faultPlan(FaultPlan.sequence(faults));
        return SimulatedServer.start(b.build());
    }

    private static CliRun run(SimulatedServer server, Path dir, String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "20", "--stddev-output-tokens", "0",
                "--no-client-warmup", "--sleep-between", "0", "--results-dir", dir.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "x"),
                args.toArray(String[]::new));
    }

    /**
     * Concurrency 2's every request refused (404: the configuration class, as connection refused) between clean
     * levels: it is not judged, concurrency 4 is compared with 1 (one slot: no gain, the saturation point), and the
     * failures are named, not "the service cannot hold it". Before: "saturation point: concurrency 2 (output tok/s
     * -100.0 % over concurrency 1)" and "first level with failures: concurrency 2 (the service cannot hold it)".
     */
    @Test
    void aLevelWhereEveryRequestFailedIsNotJudged(@TempDir Path dir) throws IOException {
        List<FaultKind> faults = new ArrayList<>(List.of(FaultKind.NONE)); // the pre-run request
        faults.addAll(Collections.nCopies(10, FaultKind.NONE));
        faults.addAll(Collections.nCopies(10, FaultKind.HTTP_404));
        faults.addAll(Collections.nCopies(10, FaultKind.NONE));
        // the 2x faster server: 20 requests that stream, one at a time, 2.5 s of them rather than 5 (either verdict
        // on concurrency 4 is read below)
        try (SimulatedServer server = server(1, faults, 2)) {
            CliRun run = run(server, dir, "--max-num-completed-requests", "10", "--concurrency-sweep", "1,2,4");
            String out = run.out();
            // 4 is compared with 1, past 2: its gain is its output tok/s over concurrency 1's. One slot gives it none
            // on a quiet machine (the saturation point); on a loaded one the client's own turnaround between
            // requests slows concurrency 1 (+5.8 % for 4 seen at load 14): then it is truthfully "not reached"
            JsonNode levels = RunFolder.sweep(dir).get("levels");
            double gain = levels.get(2).get("throughput_gain").asDouble();
            // judged on the output tok/s while each level held its concurrency (before its drain)
            assertEquals(levels.get(2).get("held_output_tok_s").asDouble()
                    / levels.get(0).get("held_output_tok_s").asDouble() - 1, gain, 1e-9, levels::toString);
            assertTrue(levels.get(1).get("throughput_gain").isNull(), levels::toString);
            if (gain < 0.05) {
                assertTrue(out.contains(String.format(Locale.ROOT, "\nsaturation point: concurrency 4 (output tok/s "
                        + "%+.1f %% over concurrency 1; threshold 5.0 %%)\n", 100 * gain)), run::toString);
            } else {
                assertTrue(out.contains("\nsaturation point: not reached (output tok/s grew by at least 5.0 % at "
                        + "every judged level)\n"), run::toString);
            }
            assertTrue(out.contains("\nfailures: none that point at the service (connection refused, 4xx, "
                    + "cancellations are named below)\n"), run::toString);
            assertTrue(out.contains("\nnot judged: concurrency 2: every request failed (10 of 10: 10 configuration "
                    + "(connection refused or 4xx)); its failure rate is recorded, its performance numbers are "
                    + "empty\n"), run::toString);
            assertFalse(out.contains("saturation point: concurrency 2"), run::toString);
        }
    }

    /** 503s are a capacity sign: "first level with failures" names the level and the cause class. */
    @Test
    void capacityFailuresAreTheFirstFailingLevel(@TempDir Path dir) {
        List<FaultKind> faults = new ArrayList<>(List.of(FaultKind.NONE));
        faults.addAll(Collections.nCopies(10, FaultKind.NONE));
        faults.addAll(Collections.nCopies(8, FaultKind.NONE));
        faults.addAll(Collections.nCopies(2, FaultKind.HTTP_503));
        try (SimulatedServer server = server(4, faults, 5)) { // a verdict on counts: the 5x faster server
            CliRun run = run(server, dir, "--max-num-completed-requests", "10", "--concurrency-sweep", "1,2");
            assertTrue(run.out().contains("\nfirst level with failures: concurrency 2 (2 of 10 failed: 2 capacity "
                    + "(429, 408, 5xx, timeouts, dropped connections,"
                    + " error events after tokens)): the service cannot hold it\n"), run::toString);
        }
    }

    /**
     * The QA's --max-num-completed-requests 6 --concurrency-sweep 2,8: neither level has 10 successes and 8 never
     * had 8 requests in flight, so there is no verdict (before: a TTFT red line at 8); a lone level has nothing to be
     * compared with (before: "not reached", "not crossed").
     */
    @Test
    void levelsTooSmallToJudgeAndALoneLevelSaySo(@TempDir Path dir) {
        try (SimulatedServer server = server(4, List.of(), 5)) { // verdicts on counts: the 5x faster server
            CliRun run = run(server, dir.resolve("a"), "--max-num-completed-requests", "6", "--concurrency-sweep",
                    "2,8");
            String out = run.out();
            assertTrue(out.contains("\nsaturation point: not judged (no level could be judged)\nTTFT red line: not "
                    + "judged (no level could be judged)\n"), run::toString);
            assertTrue(out.contains("\nnot judged: concurrency 2: only 6 successful requests (< 10 needed to judge a "
                    + "level)\n"), run::toString);
            assertTrue(out.contains("\nnot judged: concurrency 8: only 6 successful requests (< 10 needed to judge a "
                    + "level); only 6 requests in all, so it never had 8 in flight\n"), run::toString);

            CliRun one = run(server, dir.resolve("b"), "--max-num-completed-requests", "12", "--concurrency-sweep",
                    "4");
            assertTrue(one.out().contains("\nsaturation point: not judged (one level judged: nothing to compare it "
                    + "with)\nTTFT red line: not judged (one level judged: nothing to compare it with)\n"), one::toString);
        }
    }

    /**
     * A rate sweep against 4 slots, 5× faster (10 ms + 19 × 2 ms: 83 req/s): at 150 req/s the service falls far
     * behind the offer, though its output tok/s grew some 300 % over 20 req/s (before: "saturation point: not
     * reached"). A one-level rate sweep is judged too, against its own offer. The levels last 0.6 s: 12 requests at
     * 20 req/s, as 3 s of 4 req/s against the 5× slower server gave. No client cap: the arrivals queue in the server,
     * whose backlog it is (a --max-concurrency 4 would hold them in the client instead, and the level would read
     * "at the cap": AtCapCommandTest).
     */
    @Test
    void aRateSweepIsJudgedByWhetherTheServiceKeptUp(@TempDir Path dir) {
        try (SimulatedServer server = server(4, List.of(), 5)) {
            CliRun run = run(server, dir.resolve("a"), "--rate-sweep", "20,150", "--arrival", "constant",
                    "--duration", "0.6");
            assertTrue(run.out().contains("\nsaturation point: rate 150 req/s (successes ended at "), run::toString);
            assertTrue(run.out().contains(" of the scheduled rate: the service fell behind the offer; threshold "
                    + "95.0 %)\n"), run::toString);

            CliRun one = run(server, dir.resolve("b"), "--rate-sweep", "150", "--arrival", "constant",
                    "--duration", "0.6");
            assertTrue(one.out().contains("\nsaturation point: rate 150 req/s (successes ended at "), one::toString);
            assertTrue(one.out().contains("\nTTFT red line: not judged (one level judged: nothing to compare it "
                    + "with)\n"), one::toString);
        }
    }
}

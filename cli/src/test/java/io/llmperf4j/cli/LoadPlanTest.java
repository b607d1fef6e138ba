package io.llmperf4j.cli;

import io.llmperf4j.engine.harness.HarnessSettings;
import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.LoadProfile;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.SaturationRules;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.run.LoadPlan;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Load flags to the engine's profile: defaults, stop conditions, seeds; nothing is started. */
class LoadPlanTest {

    private static LoadPlan plan(String... flags) {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream());
        CliContext context = new CliContext(Map.of(), sink, sink);
        TokenBenchmarkCommand command = new TokenBenchmarkCommand(context);
        new CommandLine(command).parseArgs(flags);
        return TokenBenchmarkOptions.resolve(command, context).load();
    }

    @Test
    void withoutLoadFlagsTheClosedLoopRunsAsBefore() {
        // llmperf's plain closed loop: one inactive level, as llmperf runs it
        LoadPlan plain = plan();
        assertFalse(plain.active());
        assertEquals(LoadPlan.plain(CommonFlags.EMBEDDED_MODEL, 10, 10, Duration.ofSeconds(90)), plain);
        assertEquals(List.of(new ClosedLoopSettings(3, Duration.ofSeconds(90)).withMaxCompleted(10)
                        .withPromptOrder(ClosedLoopSettings.PromptOrder.SEND_ORDER)),
                plan("--model", "m", "--simulator", "--seed", "3", "--num-concurrent-requests", "3").profile().levels(Warmup.NONE));
    }

    @Test
    void severalModelsCompareTheClosedLoop() {
        LoadPlan p = plan("--model", "a, b", "--simulator", "--num-concurrent-requests", "3");
        assertTrue(p.active() && p.comparison());
        assertEquals(List.of("a", "b"), p.models());
        assertEquals(LoadPlan.Kind.CLOSED_LOOP, p.kind());
        ClosedLoopSettings level = (ClosedLoopSettings) p.profile().levels(p.warmup()).get(0);
        assertEquals(3, level.concurrency());
        assertEquals(OptionalInt.of(10), level.maxCompleted(), "llmperf's default");
        assertEquals(ClosedLoopSettings.PromptOrder.SEND_ORDER, level.promptOrder());
        assertEquals(Duration.ofSeconds(90), level.timeout());
        assertEquals(3, p.maxConnections());
        assertEquals(Duration.ofSeconds(5), p.pause(), "the seed guide's 5 s between models");
    }

    @Test
    void openLoopDurationSetsTheStopConditionsAndTheDrainAllowance() {
        LoadPlan p = plan("--request-rate", "2.5", "--duration", "60", "--warmup-duration", "10");
        OpenLoopSettings s = (OpenLoopSettings) p.profile().levels(p.warmup()).get(0);
        assertEquals(2.5, s.requestsPerSecond());
        assertEquals(Arrival.poisson(), s.arrival());
        assertEquals(Optional.of(Duration.ofSeconds(60)), s.duration());
        assertTrue(s.maxRequests().isEmpty(), "--max-num-completed-requests was not given with --duration");
        assertEquals(Duration.ofSeconds(10 + 60 + 90), s.timeout());
        assertEquals(Warmup.duration(Duration.ofSeconds(10)), s.warmup());
        assertTrue(s.maxConcurrency().isEmpty());
        assertEquals(LoadPlan.UNCAPPED_OPEN_LOOP_CONNECTIONS, p.maxConnections());

        OpenLoopSettings capped = (OpenLoopSettings) plan("--request-rate", "4", "--duration", "30", "--timeout",
                "45", "--max-num-completed-requests", "50", "--max-concurrency", "8", "--arrival", "gamma",
                "--burstiness", "0.5").profile().levels(Warmup.NONE).get(0);
        assertEquals(OptionalInt.of(50), capped.maxRequests(), "given explicitly: it caps the arrivals");
        assertEquals(Duration.ofSeconds(45), capped.timeout());
        assertEquals(OptionalInt.of(8), capped.maxConcurrency());
        assertEquals(Arrival.gamma(0.5), capped.arrival());

        OpenLoopSettings counted = (OpenLoopSettings) plan("--request-rate", "4").profile().levels(Warmup.NONE)
                .get(0);
        assertEquals(OptionalInt.of(10), counted.maxRequests());
        assertTrue(counted.duration().isEmpty());
    }

    @Test
    void theScheduleTakesTheWorkloadSeedUnlessArrivalSeedIsGiven() {
        LoadPlan p = plan("--request-rate", "4").seededBy(11111);
        assertEquals(11111, ((LoadProfile.OpenLoop) p.profile()).seed());
        assertEquals(11111, p.arrivalSeed());
        LoadPlan fixed = plan("--rate-sweep", "1,2", "--arrival-seed", "7").seededBy(11111);
        assertEquals(7, ((LoadProfile.RateSweep) fixed.profile()).seed());
        LoadPlan closed = plan("--concurrency-sweep", "1,2");
        assertSame(closed, closed.seededBy(5));
    }

    @Test
    void sweepsTakeTheirRulesPauseAndConnections() {
        LoadPlan p = plan("--concurrency-sweep", "1, 5,10", "--saturation-gain", "10", "--ttft-jump", "2.5",
                "--sleep-between", "0.5", "--warmup-requests", "3");
        assertEquals(LoadPlan.Kind.CONCURRENCY_SWEEP, p.kind());
        assertEquals(new SaturationRules(0.10, 2.5, SaturationRules.DEFAULT_MIN_SUCCESSFUL_SAMPLES), p.rules());
        assertEquals(Duration.ofMillis(500), p.profile().pause());
        assertEquals(10, p.maxConnections());
        assertEquals(List.of(1.0, 5.0, 10.0), p.profile().levels(p.warmup()).stream().map(l -> l.level()).toList());
        assertEquals(Warmup.requests(3), p.profile().levels(p.warmup()).get(2).warmup());
        assertEquals("concurrency_10", LoadPlan.folder(p.profile().levels(p.warmup()).get(2)));
        assertEquals("concurrency sweep 1,5,10, 10 requests per level; warmup 3 requests per level", p.describe());

        LoadPlan rates = plan("--rate-sweep", "0.5,2");
        assertEquals("rate_0.5", LoadPlan.folder(rates.profile().levels(Warmup.NONE).get(0)));
        assertEquals("rate 0.5 req/s", LoadPlan.label(rates.profile().levels(Warmup.NONE).get(0)));
        assertEquals("req/s", rates.loadUnit());
    }

    @Test
    void iterationsTakeJmhStyleDefaults() {
        LoadPlan p = plan("--iterations", "3");
        assertEquals(HarnessSettings.of(2, Duration.ofSeconds(10), 3, Duration.ofSeconds(10), 1), p.harness());
        LoadPlan custom = plan("--iterations", "2", "--warmup-iterations", "0", "--iteration-time", "1.5",
                "--forks", "3");
        assertEquals(HarnessSettings.of(0, Duration.ofMillis(1500), 2, Duration.ofMillis(1500), 3),
                custom.harness());
        assertNull(plan("--warmup-requests", "1").harness());
    }

    /**
     * The iterations replace an open loop's request budget (10 by default) with each fork's schedule over its
     * windows: the load line said "10 arrivals" where each fork sent the 53 its 9 s of poisson arrivals at 6 req/s
     * hold (the QA's server saw 106 over 2 forks).
     */
    @Test
    void iterationsOfAnOpenLoopSayTheArrivalsEachForkSends() {
        LoadPlan p = plan("--request-rate", "6", "--arrival-seed", "11111", "--iterations", "2",
                "--warmup-iterations", "1", "--iteration-time", "3", "--forks", "2");
        int perFork = OpenLoopSettings.builder(6).seed(11111).duration(Duration.ofSeconds(9)).build().schedule().size();
        assertEquals("open loop, 6 req/s, poisson arrivals (seed 11111), " + perFork + " arrivals in 9 s per fork; "
                + "1 warmup + 2 measurement iterations of 3 s, 2 forks", p.describe());
        assertEquals("rate sweep 2,6 req/s, poisson arrivals (seed 11111), 6 s of arrivals per fork and level ("
                + OpenLoopSettings.builder(2).seed(11111).duration(Duration.ofSeconds(6)).build().schedule().size()
                + " at 2 req/s, " + OpenLoopSettings.builder(6).seed(11111).duration(Duration.ofSeconds(6)).build()
                .schedule().size() + " at 6 req/s); 0 warmup + 2 measurement iterations of 3 s, 1 fork",
                plan("--rate-sweep", "2,6", "--arrival-seed", "11111", "--iterations", "2", "--warmup-iterations", "0",
                        "--iteration-time", "3").describe());
    }
}

package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.llmperf4j.engine.load.ClosedLoopRunnerTest.specs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SweepTest {

    private static final Duration LONG = Duration.ofMinutes(1);

    private static List<LoadSettings> closedLevels(int... concurrencies) {
        List<LoadSettings> l = new ArrayList<>();
        for (int c : concurrencies) l.add(new ClosedLoopSettings(c, LONG).withMaxCompleted(6));
        return l;
    }

    @Test
    void runsEveryLevelInOrderWithPausesBetween() {
        FakeClient client = FakeClient.succeeding();
        List<String> events = new ArrayList<>();
        long start = System.nanoTime();
        SweepResult result = new Sweep(client, t -> 3, OutputTokens.CLIENT).run(specs(6),
                new SweepPlan(closedLevels(1, 2, 3), Duration.ofMillis(40)), new SweepListener() {
                    @Override
                    public void onLevelStart(int index, LoadSettings level) {
                        events.add("start " + index + " " + LoadSettings.formatLevel(level.level()));
                    }

                    @Override
                    public void onLevelEnd(SweepLevelResult level) {
                        events.add("end " + level.index());
                    }
                });
        long elapsed = System.nanoTime() - start;
        assertTrue(elapsed >= TimeUnit.MILLISECONDS.toNanos(80), "two pauses of 40 ms");
        assertEquals(List.of("start 0 1", "end 0", "start 1 2", "end 1", "start 2 3", "end 2"), events);
        assertEquals(18, client.sent.size());
        assertEquals(3, result.levels().size());
        assertFalse(result.stopped());
        for (SweepLevelResult l : result.levels()) {
            assertFalse(l.aborted());
            assertEquals(6, l.summary().successes());
            assertEquals(6, l.summary().total());
            assertEquals(l.settings().level(), l.summary().level());
            assertTrue(l.summary().outputTokensPerSecond() > 0);
        }
        assertEquals(3, result.verdict().levels().size());
        assertEquals(3, result.verdict().warnings().size()); // 6 successes < 10 at each level
    }

    @Test
    void eachLevelSendsItsOwnWorkload() {
        FakeClient client = FakeClient.succeeding();
        List<String> asked = new ArrayList<>();
        new Sweep(client, t -> 3, OutputTokens.CLIENT).run((level, fork) -> {
            asked.add(level + "/" + fork);
            return java.util.stream.IntStream.range(0, 6)
                    .mapToObj(i -> new RequestSpec(i, "level " + level + " prompt " + i, 100, 10)).toList();
        }, new SweepPlan(closedLevels(1, 2), Duration.ZERO), SweepListener.NONE);
        assertEquals(List.of("0/0", "1/0"), asked);
        List<String> expected = new ArrayList<>();
        for (int level = 0; level < 2; level++) {
            for (int i = 0; i < 6; i++) expected.add("level " + level + " prompt " + i);
        }
        assertEquals(expected, client.sent.stream().map(RequestSpec::prompt).sorted().toList());
    }

    @Test
    void firstStopAbortsTheLevelAndTheSweepGoesOn() throws Exception {
        FakeClient hanging = FakeClient.neverAnswering();
        FakeClient answering = FakeClient.succeeding();
        LlmClient client = new LlmClient() { // level 0's two requests hang, everything after succeeds
            private final java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();

            @Override
            public RequestHandle send(RequestSpec spec) {
                return (n.getAndIncrement() < 2 ? hanging : answering).send(spec);
            }

            @Override
            public void close() {
            }
        };
        Sweep sweep = new Sweep(client, t -> 0, OutputTokens.CLIENT);
        CompletableFuture<SweepResult> running = CompletableFuture.supplyAsync(() -> sweep.run(specs(4),
                new SweepPlan(closedLevels(2, 2, 2), Duration.ZERO)));
        while (hanging.sent.size() < 2) Thread.sleep(5);
        sweep.stop();
        SweepResult result = running.get(20, TimeUnit.SECONDS);

        assertFalse(result.stopped());
        assertEquals(3, result.levels().size());
        SweepLevelResult aborted = result.levels().get(0);
        assertTrue(aborted.aborted());
        assertEquals(2, aborted.result().records().size()); // kept, with its records …
        assertTrue(aborted.result().records().stream().allMatch(r -> r.failure().kind() == FailureKind.CANCELLED));
        assertEquals(1.0, aborted.summary().failureRate()); // … and its failure rate
        for (SweepLevelResult l : result.levels().subList(1, 3)) {
            assertFalse(l.aborted());
            assertEquals(6, l.summary().successes());
        }
        // cancelled by the stop, not failed by the server: the aborted level is not judged
        assertTrue(result.verdict().firstFailingIndex().isEmpty(), result.verdict().toString());
    }

    @Test
    void secondStopEndsTheSweep() throws Exception {
        FakeClient client = FakeClient.neverAnswering();
        Sweep sweep = new Sweep(client, t -> 0, OutputTokens.CLIENT);
        CompletableFuture<SweepResult> running = CompletableFuture.supplyAsync(() -> sweep.run(specs(4),
                new SweepPlan(closedLevels(2, 2, 2), Duration.ofMinutes(5))));
        while (client.sent.size() < 2) Thread.sleep(5);
        sweep.stop(); // abort level 0
        sweep.stop(); // during level 0 or the pause after it: end the sweep
        SweepResult result = running.get(20, TimeUnit.SECONDS); // not after a 5-minute pause

        assertTrue(result.stopped());
        assertEquals(1, result.levels().size());
        assertEquals(2, client.sent.size()); // no other level started
        assertTrue(result.levels().get(0).aborted());
        assertEquals(2, result.levels().get(0).summary().failures());
    }

    @Test
    void aStopDuringThePauseEndsTheSweep() throws Exception {
        FakeClient client = FakeClient.succeeding();
        Sweep sweep = new Sweep(client, t -> 0, OutputTokens.CLIENT);
        CountDownLatch levelEnded = new CountDownLatch(1);
        CompletableFuture<SweepResult> running = CompletableFuture.supplyAsync(() -> sweep.run(specs(4),
                new SweepPlan(closedLevels(1, 1), Duration.ofMinutes(5)), new SweepListener() {
                    @Override
                    public void onLevelEnd(SweepLevelResult level) {
                        levelEnded.countDown();
                    }
                }));
        assertTrue(levelEnded.await(20, TimeUnit.SECONDS));
        sweep.stop();
        SweepResult result = running.get(20, TimeUnit.SECONDS); // not 5 minutes
        assertTrue(result.stopped());
        assertEquals(1, result.levels().size());
        assertFalse(result.levels().get(0).aborted());
    }

    @Test
    void openLoopLevelsSweepRates() {
        FakeClient client = FakeClient.succeeding();
        List<LoadSettings> levels = LoadProfile.rateSweep(List.of(500.0, 1000.0), Duration.ofSeconds(1))
                .withRequestsPerLevel(5).withPause(Duration.ZERO).levels(Warmup.requests(2));
        SweepResult result = new Sweep(client, t -> 1, OutputTokens.CLIENT).run(specs(3),
                new SweepPlan(levels, Duration.ZERO));
        assertEquals(14, client.sent.size());
        assertEquals(List.of(500.0, 1000.0), result.summaries().stream().map(LevelSummary::level).toList());
        assertTrue(result.levels().stream().allMatch(l -> l.result() instanceof OpenLoopResult o
                && o.records().size() == 5 && o.warmupRecords().size() == 2));
    }

    @Test
    void mixedLoopsAreRefused() {
        List<LoadSettings> mixed = List.of(new ClosedLoopSettings(1, LONG),
                OpenLoopSettings.builder(1).maxRequests(1).build());
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new SweepPlan(mixed, Duration.ZERO));
        assertTrue(e.getMessage().startsWith("levels[1] (open loop, 1 req/s poisson) is not of the same loop"),
                e.getMessage());
    }
}

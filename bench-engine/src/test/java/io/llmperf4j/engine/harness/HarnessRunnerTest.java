package io.llmperf4j.engine.harness;

import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.DelayedClient;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.OutputTokens;
import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HarnessRunnerTest {

    private static final List<RequestSpec> SPECS = IntStream.range(0, 3)
            .mapToObj(i -> new RequestSpec(i, "p" + i, 10, 20)).toList();

    @Test
    void eachForkGetsAFreshClientAndEveryWindowAScore() {
        AtomicInteger clients = new AtomicInteger();
        List<DelayedClient> made = new ArrayList<>();
        HarnessRunner runner = new HarnessRunner(() -> {
            clients.incrementAndGet();
            DelayedClient c = new DelayedClient(10);
            made.add(c);
            return c;
        }, t -> 2, OutputTokens.SERVER_USAGE_ELSE_CLIENT);
        List<String> events = new ArrayList<>();
        HarnessResult r = runner.run("fake", Map.of("scenario", "T1"), SPECS,
                new ClosedLoopSettings(2, Duration.ofMinutes(1)).withMaxCompleted(1),
                HarnessSettings.of(1, Duration.ofMillis(100), 2, Duration.ofMillis(100), 2), new HarnessListener() {
                    @Override
                    public void onForkStart(int fork, int forks) {
                        events.add("fork " + fork + "/" + forks);
                    }

                    @Override
                    public void onIteration(IterationResult iteration) {
                        events.add(iteration.type() + " " + iteration.index());
                    }
                });
        assertEquals(2, clients.get());
        assertEquals(List.of("fork 1/2", "WARMUP 1", "MEASUREMENT 1", "MEASUREMENT 2", "fork 2/2", "WARMUP 1",
                "MEASUREMENT 1", "MEASUREMENT 2"), events);
        assertEquals(2, r.forks().size());
        assertEquals(false, r.aborted());
        assertEquals(Map.of("concurrency", "2", "scenario", "T1"), r.params());
        for (ForkResult f : r.forks()) {
            assertEquals(1, f.warmup().size());
            assertEquals(2, f.measurement().size());
            // the load point's limit of 1 request is replaced by continuous load: both slots send at once
            assertTrue(f.load().records().size() >= 2, "records " + f.load().records().size());
            assertTrue(f.measurement().stream().mapToDouble(IterationResult::outputTokens).sum() > 0);
        }
        assertEquals(4, r.primary().statistics().n());
        assertTrue(r.primary().score() >= 0);
        assertEquals(2, r.primary().rawData().size());
        assertTrue(made.stream().allMatch(c -> c.maxInFlight.get() <= 2));
        assertEquals(2, r.threads());
    }

    @Test
    void openLoopPointsKeepRateArrivalSeedAndCap() {
        OpenLoopSettings point = OpenLoopSettings.builder(50).arrival(Arrival.gamma(2)).seed(4).maxRequests(1)
                .maxConcurrency(3).build();
        OpenLoopSettings fork = (OpenLoopSettings) HarnessRunner.forkLoad(point, Duration.ofSeconds(7));
        assertEquals(50, fork.requestsPerSecond());
        assertEquals(Arrival.gamma(2), fork.arrival());
        assertEquals(4, fork.seed());
        assertTrue(fork.maxRequests().isEmpty());
        assertEquals(Duration.ofSeconds(7), fork.duration().orElseThrow());
        assertEquals(Duration.ofSeconds(7), fork.timeout());
        assertEquals(3, fork.maxConcurrency().getAsInt());
    }

    @Test
    void closedLoopPointsKeepConcurrencyAndPromptOrder() {
        ClosedLoopSettings point = new ClosedLoopSettings(3, Duration.ofMinutes(1)).withMaxCompleted(5)
                .withPromptOrder(ClosedLoopSettings.PromptOrder.SEND_ORDER);
        ClosedLoopSettings fork = (ClosedLoopSettings) HarnessRunner.forkLoad(point, Duration.ofSeconds(7));
        assertEquals(3, fork.concurrency());
        assertEquals(ClosedLoopSettings.PromptOrder.SEND_ORDER, fork.promptOrder());
        assertEquals(Duration.ofSeconds(7), fork.timeout());
    }

    @Test
    void stopEndsTheForkAndRunsNoMore() throws Exception {
        HarnessRunner runner = new HarnessRunner(() -> new DelayedClient(5), t -> 2, OutputTokens.CLIENT);
        CompletableFuture<Void> forkStarted = new CompletableFuture<>();
        CompletableFuture<HarnessResult> running = CompletableFuture.supplyAsync(() -> runner.run("fake", Map.of(),
                SPECS, new ClosedLoopSettings(1, Duration.ofMinutes(1)),
                HarnessSettings.of(0, Duration.ofSeconds(1), 3, Duration.ofSeconds(60), 3), new HarnessListener() {
                    @Override
                    public void onForkStart(int fork, int forks) {
                        forkStarted.complete(null);
                    }
                }));
        forkStarted.get(10, TimeUnit.SECONDS);
        runner.stop();
        HarnessResult r = running.get(20, TimeUnit.SECONDS); // not 3 minutes
        assertTrue(r.aborted());
        assertEquals(1, r.forks().size());
        assertTrue(r.forks().get(0).aborted());
        assertTrue(r.forks().get(0).measurement().isEmpty()); // no 60 s window ended
    }
}

package io.llmperf4j.engine.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.DelayedClient;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.OutputTokens;
import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.server.FaultKind;
import io.llmperf4j.server.FaultPlan;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
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
import static org.junit.jupiter.api.Assertions.assertFalse;
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

    @Test
    void aServerThatRefusesEveryRequestGivesNoScore() throws Exception {
        // the simulator answering every request 500, through the real client
        SimulatorConfig refusing = SimulatorConfig.builder()
                .faultPlan(FaultPlan.random(1.0, Map.of(FaultKind.HTTP_500, 1.0), 1)).build();
        try (SimulatedServer server = SimulatedServer.start(refusing)) {
            HarnessRunner runner = new HarnessRunner(() -> new NettyLlmClient(ClientConfig.builder(
                    EndpointUrls.chatCompletions(server.baseUrl()), "m").maxConnections(16).build()), t -> 2,
                    OutputTokens.SERVER_USAGE_ELSE_CLIENT);
            HarnessResult r = runner.run("refused", Map.of(), SPECS, new ClosedLoopSettings(2, Duration.ofMinutes(1)),
                    // a warmup iteration takes the client's cold start (its first connection, on a busy machine)
                    HarnessSettings.of(1, Duration.ofSeconds(1), 3, Duration.ofMillis(300), 1), null);

            assertEquals(0, r.requestsCompleted());
            assertTrue(r.requestsFailed() > 0, "failed " + r.requestsFailed());
            assertTrue(r.everyRequestFailed());
            // the failure gate's records: the same requests the iterations counted, every one failed
            List<RequestRecord> measured = r.measuredRecords();
            assertEquals(r.requestsFailed(), measured.size());
            assertTrue(measured.stream().noneMatch(RequestRecord::succeeded));
            // no score rather than a confident 0 ± 0; each iteration's own 0 tok/s stays in the raw data
            for (MetricResult m : List.of(r.primary(), r.requestsPerSecond())) {
                assertEquals(0, m.statistics().n(), m.label());
                assertTrue(Double.isNaN(m.score()), m.label() + " " + m.score());
                assertTrue(Double.isNaN(m.scoreError()), m.label());
            }
            assertEquals(List.of(List.of(0.0, 0.0, 0.0)), r.primary().rawData());

            JsonNode entry = new ObjectMapper().readTree(JmhJsonFormat.toJson(List.of(r))).get(0);
            assertEquals("NaN", entry.get("primaryMetric").get("score").asText());
            assertEquals("NaN", entry.get("primaryMetric").get("scoreConfidence").get(0).asText());
            assertEquals(0, entry.get("measuredRequests").get("succeeded").asInt());
            assertEquals(r.requestsFailed(), entry.get("measuredRequests").get("failed").asInt());
            // no success, so no TTFT score in any window: each fork's rawData leaves them out, as the statistics do
            // (it held "NaN" strings, no number to the JMH tools reading it)
            assertEquals("[[]]", entry.get("secondaryMetrics").get("ttft_ms").get("rawData").toString());
            assertEquals("[[]]", entry.get("secondaryMetrics").get("tpot_ms").get("rawData").toString());

            String text = JmhTextFormat.render(List.of(r));
            assertTrue(text.contains("Result \"refused\":\n  no score: every measured request failed ("
                    + r.requestsFailed() + " of " + r.requestsFailed() + ")\n"), text);
            assertFalse(text.contains("0.000 ±"), text);
            assertTrue(text.contains(JmhTextFormat.NO_SCORE + ": every measured request failed, " + r.requestsFailed()
                    + " of " + r.requestsFailed() + ")\n"), text);
        }
    }
}

package io.llmperf4j.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.harness.HarnessResult;
import io.llmperf4j.engine.harness.HarnessSettings;
import io.llmperf4j.engine.harness.IterationResult;
import io.llmperf4j.engine.harness.JmhTextFormat;
import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.engine.load.LevelSummary;
import io.llmperf4j.engine.load.LoadProfile;
import io.llmperf4j.engine.load.LoadResult;
import io.llmperf4j.engine.load.OpenLoopResult;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.engine.testserver.TimedSseServer;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Tiny experiments through the Java API against a local timed SSE server. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BenchmarkApiTest {

    private static final List<RequestSpec> WORKLOAD = IntStream.range(0, 4)
            .mapToObj(i -> new RequestSpec(i, "say hello " + i, 12, 8)).toList();
    private static TimedSseServer server;

    @BeforeAll
    static void startServer() throws IOException {
        server = TimedSseServer.start(Duration.ofMillis(5), Duration.ofMillis(2)); // 8 tokens in ~20 ms
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    private static ClientConfig config() {
        return ClientConfig.builder(EndpointUrls.chatCompletions(server.baseUrl()), "test-model").maxConnections(16)
                .build();
    }

    @Test
    void concurrencySweepWithWarmup() {
        List<Integer> levelsStarted = new ArrayList<>();
        List<LevelOutcome> outcomes = new ArrayList<>();
        BenchmarkResult result = Benchmark.builder()
                .name("t1-baseline")
                .endpoint(config())
                .workload(WORKLOAD)
                .load(LoadProfile.concurrencySweep(List.of(1, 2, 4)).withRequestsPerLevel(12)
                        .withPause(Duration.ofMillis(20)))
                .warmup(Warmup.requests(2))
                .tokenCounter(text -> text.split(" ").length)
                .listener(new BenchmarkListener() {
                    @Override
                    public void onLevelStart(int index, io.llmperf4j.engine.load.LoadSettings level) {
                        levelsStarted.add((int) level.level());
                    }

                    @Override
                    public void onLevelOutcome(LevelOutcome level) {
                        outcomes.add(level);
                    }
                })
                .build()
                .run();

        assertEquals(List.of(1, 2, 4), levelsStarted);
        assertEquals(result.levels(), outcomes); // told as each level ended
        assertFalse(result.stopped());
        assertEquals(3, result.levels().size());
        for (LevelOutcome level : result.levels()) {
            LoadResult run = level.run().orElseThrow();
            assertEquals(12, run.records().size());
            assertEquals(2, run.warmupRecords().size());
            assertTrue(run.records().stream().allMatch(RequestRecord::succeeded));
            assertTrue(run.records().stream().allMatch(r -> r.usageCompletionTokens() == 8 && r.outputTokens() == 8));
            LevelSummary s = level.summary();
            assertEquals(12, s.successes());
            assertEquals(12, s.total());
            assertTrue(s.outputTokensPerSecond() > 0);
            assertTrue(s.ttftP90Millis() >= s.ttftP50Millis());
            assertTrue(s.ttftP50Millis() >= 5, "the server waits 5 ms before the first token");
            assertTrue(s.e2eP50Millis() >= 5 + 7 * 2);
            assertTrue(level.harness().isEmpty());
        }
        assertEquals(3, result.verdict().levels().size());
        assertTrue(result.verdict().warnings().isEmpty(), "12 successes >= 10: no warnings");
        assertTrue(result.harnessResults().isEmpty());
    }

    @Test
    void openLoopWithACapThroughTheApi() {
        BenchmarkResult result = Benchmark.builder()
                .endpoint(config())
                .workload(WORKLOAD)
                .load(LoadProfile.openLoop(200, 30).withArrival(Arrival.gamma(0.5)).withSeed(1).withMaxConcurrency(2))
                .build()
                .run();
        OpenLoopResult run = (OpenLoopResult) result.levels().get(0).run().orElseThrow();
        assertEquals(30, run.records().size());
        assertTrue(server.maxInFlight() >= 1);
        assertTrue(run.summary().ttftFromIntended().maxNanos() >= run.summary().ttftFromActual().maxNanos());
        // each 8-token stream holds a slot >= 5 + 7 × 2 = 19 ms, so the last two of 30 cannot start before
        // 14 rounds: the last arrival is late by at least that minus its intended time
        long lowerBound = TimeUnit.MILLISECONDS.toNanos(14 * 19) - run.settings().schedule().lastOffsetNanos();
        assertTrue(lowerBound > 0, "the schedule should outpace two slots");
        assertTrue(run.summary().sendLag().maxNanos() >= lowerBound, run.summary().sendLag() + " vs " + lowerBound);
        assertTrue(run.maxBacklog() >= 1);
    }

    @Test
    void harnessGivesJmhResultsWithAFreshClientPerFork() throws IOException {
        AtomicInteger clients = new AtomicInteger();
        List<LevelOutcome> outcomes = new ArrayList<>();
        ByteArrayOutputStream live = new ByteArrayOutputStream();
        BenchmarkResult result = Benchmark.builder()
                .name("llm.chat")
                .client(() -> {
                    clients.incrementAndGet();
                    return new NettyLlmClient(config());
                })
                .workload(WORKLOAD)
                .load(LoadProfile.closedLoop(2))
                .harness(HarnessSettings.of(1, Duration.ofMillis(200), 2, Duration.ofMillis(300), 2))
                .param("scenario", "T1")
                .listener(BenchmarkListener.combine(JmhTextFormat.progress(new PrintStream(live, true,
                        StandardCharsets.UTF_8)), new BenchmarkListener() {
                    @Override
                    public void onLevelOutcome(LevelOutcome level) {
                        outcomes.add(level);
                    }
                }))
                .build()
                .run();
        assertEquals(result.levels(), outcomes);
        String progress = live.toString(StandardCharsets.UTF_8);
        assertTrue(progress.contains("# Fork: 2 of 2\n"), progress);
        assertTrue(progress.contains("# Warmup Iteration   1:"), progress);
        assertTrue(progress.contains("Result \"llm.chat\":"), progress);

        assertEquals(2, clients.get());
        HarnessResult h = result.harnessResults().get(0);
        assertEquals(2, h.forks().size());
        assertEquals(4, h.primary().statistics().n());
        assertTrue(h.measurementIterations().stream().mapToDouble(IterationResult::outputTokens).sum() > 0);
        assertTrue(h.measurementIterations().stream().mapToInt(IterationResult::requestsCompleted).sum() > 0);
        assertTrue(result.levels().get(0).summary().successes() > 0);

        JsonNode json = new ObjectMapper().readTree(result.jmhJson());
        assertEquals("llm.chat", json.get(0).get("benchmark").asText());
        assertEquals("2", json.get(0).get("params").get("concurrency").asText());
        assertEquals("T1", json.get(0).get("params").get("scenario").asText());
        assertEquals(2, json.get(0).get("primaryMetric").get("rawData").size());
        assertEquals(2, json.get(0).get("primaryMetric").get("rawData").get(1).size());
        assertTrue(json.get(0).get("primaryMetric").get("score").asDouble() >= 0);

        String text = result.jmhText();
        assertTrue(text.contains("# Warmup Iteration   1:"), text);
        assertTrue(text.contains("Iteration   2:"), text);
        assertTrue(text.contains("Result \"llm.chat\":"), text);
    }

    @Test
    void builderRefusesIncompleteOrConflictingExperiments() {
        assertEquals("an endpoint or a client supplier is required", assertThrows(IllegalArgumentException.class,
                () -> Benchmark.builder().workload(WORKLOAD).load(LoadProfile.closedLoop(1)).build()).getMessage());
        assertEquals("a load profile is required", assertThrows(IllegalArgumentException.class,
                () -> Benchmark.builder().endpoint(config()).workload(WORKLOAD).build()).getMessage());
        assertEquals("warmup (3 requests) cannot be combined with a harness: its warmup iterations replace it",
                assertThrows(IllegalArgumentException.class, () -> Benchmark.builder().endpoint(config())
                        .workload(WORKLOAD).load(LoadProfile.closedLoop(1)).warmup(Warmup.requests(3))
                        .harness(HarnessSettings.DEFAULT).build()).getMessage());
    }
}

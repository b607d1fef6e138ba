package io.llmperf4j.run;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.load.ClosedLoopResult;
import io.llmperf4j.engine.load.ClosedLoopRunner;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.report.metrics.DeliveredTokens;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.metrics.TokenCounting;
import io.llmperf4j.report.summary.RunEnvironment;
import io.llmperf4j.report.summary.SummaryDocument;
import io.llmperf4j.report.summary.SummaryJson;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A closed loop's warmup request is still streaming when the measured window opens (the window opens at the first
 * measured send, and the other slots send theirs at once): against the simulator, the tokens it delivered inside the
 * window count in the delivered figure, computed once with the metrics and written as the summary's
 * output_tokens_delivered, and in no other figure.
 */
class WarmupDeliveredTokensTest {
    private static final LlmApi CHAT = ApiRegistry.get("openai").adapter(true, null);
    private static final long MILLI = 1_000_000L;

    @Test
    void theWarmupsTokensInsideTheWindowCountInTheDeliveredFigureOnly() throws Exception {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(5)).build());
             NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(CHAT.endpoint(server.baseUrl()), "m")
                     .maxConnections(2).build(), CHAT)) {
            List<RequestSpec> specs = new ArrayList<>();
            for (int i = 0; i < 4; i++) specs.add(new RequestSpec(i, "prompt " + i, 5, 20));
            // one warmup request, two slots: slot 0's first request is the warmup, slot 1's the first measured one
            ClosedLoopResult result = new ClosedLoopRunner(client, text -> 1).run(specs, new ClosedLoopSettings(2,
                    OptionalInt.of(4), Duration.ofSeconds(60), Warmup.requests(1),
                    ClosedLoopSettings.PromptOrder.SEND_ORDER));
            assertEquals(1, result.warmupRecords().size());
            assertEquals(4, result.records().stream().filter(RequestRecord::succeeded).count());

            BenchmarkRun run = result.toBenchmarkRun(TestRunSettings.llmperfRun(server.baseUrl())
                    .meanInputTokens(5)
                    .meanOutputTokens(20)
                    .numConcurrentRequests(2)
                    .timeoutSeconds(60)
                    .maxNumCompletedRequests(4)
                    .build());
            TokenCounting counting = TokenCounting.DEFAULT;
            double measured = insideWindow(run, run.records(), counting);
            double warmup = insideWindow(run, result.warmupRecords(), counting);
            assertTrue(warmup > 0, "the warmup request streamed after the window opened");
            assertEquals(run.records().stream().mapToInt(counting.policy()::outputTokensOrZero).sum(), measured, 1e-9,
                    "every measured token arrived inside the window");

            RunMetrics metrics = RunMetrics.of(run, MetricsConfig.DEFAULT, null, result.warmupRecords());
            DeliveredTokens delivered = metrics.delivered();
            assertEquals(measured + warmup, delivered.tokens(), 1e-9);
            assertEquals(0, delivered.fromFailed(), 1e-9);
            assertEquals((measured + warmup) / (run.durationNanos() / 1e9), delivered.tokensPerSecond(), 1e-9);
            // the warmup is in no other figure
            RunMetrics without = RunMetrics.of(run, MetricsConfig.DEFAULT);
            assertEquals(measured, without.delivered().tokens(), 1e-9);
            assertEquals(without.totalOutputTokens(), metrics.totalOutputTokens());
            assertEquals(without.outputTokensPerSecond(), metrics.outputTokensPerSecond());
            assertEquals(without.requestsRecorded(), metrics.requestsRecorded());

            // the summary writes the figure computed with the metrics
            JsonNode t = SummaryJson.parse(SummaryJson.toJson(SummaryDocument.of(run, metrics, "test",
                    RunEnvironment.current()))).get("throughput");
            assertEquals(measured + warmup, t.get("output_tokens_delivered").asDouble(), 1e-9);
            assertEquals(delivered.tokensPerSecond(), t.get("output_tokens_per_s_delivered").asDouble(), 1e-9);
            assertEquals(metrics.totalOutputTokens(), t.get("total_output_tokens").asLong());
        }
    }

    /**
     * The tokens {@code records} delivered inside {@code run}'s window, written out here from the records: a
     * request's n over its content events, an event counting when its wall-clock arrival lies in the window (2 ms
     * wider at each edge: its start is known to the millisecond, and a request's wall time is read apart).
     */
    private static double insideWindow(BenchmarkRun run, List<RequestRecord> records, TokenCounting counting) {
        long start = run.startEpochMillis() * MILLI - 2 * MILLI;
        long end = run.startEpochMillis() * MILLI + run.durationNanos() + 2 * MILLI;
        double tokens = 0;
        for (RequestRecord r : records) {
            long[] events = r.contentEventNanos();
            int n = counting.policy().outputTokensOrZero(r);
            for (long e : events) {
                long at = r.startEpochMicros() * 1_000L + e;
                if (at >= start && at <= end) tokens += (double) n / events.length;
            }
        }
        return tokens;
    }
}

package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.engine.testserver.TimedSseServer;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The open loop over real sockets against a timed SSE server. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OpenLoopRunnerSocketTest {

    private static List<RequestSpec> specs(int n, int maxTokens) {
        return IntStream.range(0, n).mapToObj(i -> new RequestSpec(i, "prompt " + i, 10, maxTokens)).toList();
    }

    @Test
    void whenTheCapBindsLatencyFromIntendedSendIncludesTheQueueing() throws IOException {
        // each stream takes >= 20 ms + 9 × 5 ms; 2 slots serve < 31 req/s while 100 req/s arrive
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(20), Duration.ofMillis(5));
             NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(
                     EndpointUrls.chatCompletions(server.baseUrl()), "m").maxConnections(8).build())) {
            OpenLoopResult result = new OpenLoopRunner(client, String::length).run(specs(4, 10),
                    OpenLoopSettings.builder(100).arrival(Arrival.poisson()).seed(3).maxRequests(24)
                            .maxConcurrency(2).warmup(Warmup.requests(2)).timeout(Duration.ofSeconds(30)).build());

            assertEquals(24, result.records().size());
            assertEquals(2, result.warmupRecords().size());
            assertTrue(result.records().stream().allMatch(RequestRecord::succeeded), result.records().toString());
            assertTrue(server.maxInFlight() <= 2, "the server saw " + server.maxInFlight() + " streams at once");
            assertEquals(26, server.requests());
            for (ScheduledRecord r : result.measuredTimeline()) {
                assertTrue(r.sendLagNanos() >= 0);
                assertEquals(r.record().ttftNanos() + r.startLagNanos(), r.ttftFromIntendedNanos());
                assertTrue(r.ttftFromIntendedNanos() >= r.record().ttftNanos());
                assertTrue(r.e2eFromIntendedNanos() >= r.record().e2eNanos());
                assertEquals(10, r.record().usageCompletionTokens());
            }
            OpenLoopSummary s = result.summary();
            // queueing is real: the most-delayed request waited behind many others
            assertTrue(s.sendLag().maxNanos() >= TimeUnit.MILLISECONDS.toNanos(100), "lag " + s.sendLag());
            assertTrue(s.ttftFromIntended().maxNanos() >= s.sendLag().maxNanos());
            assertTrue(s.ttftFromIntended().p90Nanos() >= s.ttftFromActual().p90Nanos());
            assertTrue(s.e2eFromIntended().maxNanos() >= s.e2eFromActual().maxNanos());
            assertTrue(s.e2eFromIntended().maxNanos() >= TimeUnit.MILLISECONDS.toNanos(100 + 65));
            assertTrue(s.maxBacklog() >= 2, "backlog " + s.maxBacklog());
            assertTrue(s.achievedSendRequestsPerSecond() < s.scheduledRequestsPerSecond());
            assertEquals(0, s.arrivalsNotSent());
        }
    }

    /**
     * The time between the pacer's stamp and the client's start stamp (here a body that takes 30 ms to build) is
     * send lag: send lag plus TTFT is the first token's time after the intended send, nothing lost between the two.
     */
    @Test
    void timeBeforeTheClientsStartStampIsSendLag() throws IOException {
        long buildMillis = 30;
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(5), Duration.ofMillis(1));
             NettyLlmClient netty = new NettyLlmClient(ClientConfig.builder(
                     EndpointUrls.chatCompletions(server.baseUrl()), "m").maxConnections(4).build())) {
            LlmClient slowToBuild = new LlmClient() {
                @Override
                public RequestHandle send(RequestSpec spec) {
                    try {
                        Thread.sleep(buildMillis); // stands in for a large body encoded before the clock starts
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return netty.send(spec);
                }

                @Override
                public long[] preconnect(int connections) {
                    return netty.preconnect(connections);
                }

                @Override
                public void close() {
                }
            };
            // one arrival every 200 ms: each send's 30 ms is its own, never an earlier one's backlog
            OpenLoopResult result = new OpenLoopRunner(slowToBuild, String::length).run(specs(4, 5),
                    OpenLoopSettings.builder(5).arrival(Arrival.constant()).maxRequests(4)
                            .timeout(Duration.ofSeconds(30)).build());

            assertEquals(4, result.records().size());
            for (ScheduledRecord r : result.measuredTimeline()) {
                assertTrue(r.record().succeeded(), r.record().toString());
                assertTrue(r.sendLagNanos() >= TimeUnit.MILLISECONDS.toNanos(buildMillis),
                        "the 30 ms before the client's stamp are send lag: " + r.sendLagNanos() + " ns");
                assertEquals(r.record().ttftNanos() + r.startLagNanos(), r.ttftFromIntendedNanos());
            }
        }
    }
}

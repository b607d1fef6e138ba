package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.ConnectionMode;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.testserver.FaultServer;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Connections are opened before the clock starts, as many as the run uses, and the measured requests reuse them;
 * the other connection modes keep the old behaviours. Real client, real sockets, counted on the server.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PreconnectSocketTest {

    private static final Duration LONG = Duration.ofMinutes(1);

    private FaultServer server;

    @BeforeEach
    void start() throws IOException {
        server = FaultServer.start();
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
    }

    private NettyLlmClient client(ConnectionMode mode) {
        return new NettyLlmClient(ClientConfig.builder(EndpointUrls.chatCompletions(server.baseUrl()), "m")
                .maxConnections(16).connectionMode(mode).build());
    }

    private static List<RequestSpec> specs(int n) {
        return IntStream.range(0, n).mapToObj(i -> new RequestSpec(i, "ok", 10, 20)).toList();
    }

    @Test
    void closedLoopPreconnectsOneConnectionPerSlotAndEveryRequestReusesOne() {
        int concurrency = 4;
        try (NettyLlmClient client = client(ConnectionMode.PRECONNECT)) {
            ClosedLoopResult result = new ClosedLoopRunner(client, String::length)
                    .run(specs(12), new ClosedLoopSettings(concurrency, LONG));

            assertEquals(12, result.records().size());
            assertTrue(result.records().stream().allMatch(RequestRecord::succeeded), result.records().toString());
            assertTrue(result.records().stream().allMatch(r -> r.connectNanos() == RequestRecord.NEVER),
                    "no measured request opened a connection");
            assertEquals(concurrency, server.acceptedConnections(), "the server saw exactly one per slot");
            assertEquals(concurrency, result.preconnectNanos().length);
            assertTrue(Arrays.stream(result.preconnectNanos()).allMatch(n -> n > 0));
        }
    }

    @Test
    void aSecondRunOpensOnlyWhatIsMissing() {
        try (NettyLlmClient client = client(ConnectionMode.PRECONNECT)) {
            ClosedLoopRunner runner = new ClosedLoopRunner(client, String::length);
            ClosedLoopResult first = runner.run(specs(4), new ClosedLoopSettings(2, LONG));
            ClosedLoopResult second = runner.run(specs(6), new ClosedLoopSettings(3, LONG));

            assertEquals(2, first.preconnectNanos().length);
            assertEquals(1, second.preconnectNanos().length, "two were open and idle already");
            assertEquals(3, server.acceptedConnections());
            assertTrue(second.records().stream().allMatch(r -> r.connectNanos() == RequestRecord.NEVER));
        }
    }

    @Test
    void everySweepLevelPreconnectsBeforeItsClockStarts() {
        try (NettyLlmClient client = client(ConnectionMode.PRECONNECT)) {
            SweepResult result = new Sweep(client, String::length, OutputTokens.CLIENT).run(specs(8),
                    new SweepPlan(List.of(new ClosedLoopSettings(2, LONG), new ClosedLoopSettings(5, LONG)),
                            Duration.ZERO));

            assertEquals(2, result.levels().get(0).result().preconnectNanos().length);
            assertEquals(3, result.levels().get(1).result().preconnectNanos().length);
            for (SweepLevelResult level : result.levels()) {
                assertTrue(level.result().records().stream().allMatch(r -> r.connectNanos() == RequestRecord.NEVER));
            }
            assertEquals(5, server.acceptedConnections());
        }
    }

    @Test
    void openLoopPreconnectsUpToItsCap() {
        OpenLoopSettings settings = OpenLoopSettings.builder(200).arrival(Arrival.constant())
                .duration(Duration.ofMillis(50)).maxConcurrency(3).timeout(Duration.ofSeconds(20)).build();
        try (NettyLlmClient client = client(ConnectionMode.PRECONNECT)) {
            OpenLoopResult result = new OpenLoopRunner(client, String::length).run(specs(1), settings);

            assertTrue(result.records().size() > 3, "more requests than connections: " + result.records().size());
            assertEquals(3, result.preconnectNanos().length);
            assertTrue(result.records().stream().allMatch(r -> r.connectNanos() == RequestRecord.NEVER));
            assertEquals(3, server.acceptedConnections());
        }
    }

    @Test
    void onDemandConnectsInsideTheFirstWave() {
        try (NettyLlmClient client = client(ConnectionMode.ON_DEMAND)) {
            ClosedLoopResult result = new ClosedLoopRunner(client, String::length)
                    .run(specs(8), new ClosedLoopSettings(2, LONG));

            assertEquals(0, result.preconnectNanos().length);
            assertEquals(2, result.records().stream().filter(r -> r.connectNanos() >= 0).count());
            assertEquals(2, server.acceptedConnections());
        }
    }

    @Test
    void perRequestOpensANewConnectionForEveryRequest() {
        try (NettyLlmClient client = client(ConnectionMode.PER_REQUEST)) {
            ClosedLoopResult result = new ClosedLoopRunner(client, String::length)
                    .run(specs(6), new ClosedLoopSettings(2, LONG));

            assertEquals(0, result.preconnectNanos().length);
            assertTrue(result.records().stream().allMatch(RequestRecord::succeeded), result.records().toString());
            assertTrue(result.records().stream().allMatch(r -> r.connectNanos() >= 0
                    && r.phases().connectionReadyNanos() >= r.connectNanos()), "connect inside every TTFT");
            assertEquals(6, server.acceptedConnections());
        }
    }
}

package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.testserver.TimedSseServer;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * An uncapped open loop of constant arrivals cut by its timeout at the very instant an arrival is due (4 req/s,
 * --timeout 0.5 s: the arrival at 0.5 s), over real sockets against a quick server on 127.0.0.1: nothing ever waited,
 * so the largest backlog is 0. It read 1 when the deadline came before the pacer's wake: the arrival due at the cut
 * counted as due and not sent.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OpenLoopCutBacklogSocketTest {

    private static final int RUNS = 6;

    @Test
    void anArrivalDueAtTheCutIsNoBacklog() throws IOException {
        List<RequestSpec> specs = IntStream.range(0, 4).mapToObj(i -> new RequestSpec(i, "p " + i, 5, 2)).toList();
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(1), Duration.ofMillis(1));
             NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(
                     EndpointUrls.chatCompletions(server.baseUrl()), "m").maxConnections(8).build())) {
            // a first run warms the client up: a cold one can be late from its start, a backlog of its own
            new OpenLoopRunner(client, String::length).run(specs, OpenLoopSettings.builder(50)
                    .arrival(Arrival.constant()).maxRequests(20).timeout(Duration.ofSeconds(30)).build());
            for (int run = 0; run < RUNS; run++) {
                OpenLoopResult result = new OpenLoopRunner(client, String::length).run(specs,
                        OpenLoopSettings.builder(4).arrival(Arrival.constant()).maxRequests(20)
                                .timeout(Duration.ofMillis(500)).build());
                OpenLoopSummary s = result.summary();
                assertEquals(0, s.maxBacklog(), "run " + run + ": " + s.arrivalsNotSent() + " not sent");
            }
        }
    }
}

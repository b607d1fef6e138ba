package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.engine.testserver.TimedSseServer;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A closed loop's timeline sends a request where the client takes it, not where its slot freed: the client's own
 * start stamp (from which TTFT and E2E count), so each end (send + E2E) is the request's end. Real sockets; the
 * client here is slow to build each request (a large body), and the order of the stamps is asserted, not a duration.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClosedLoopSendStampSocketTest {

    /** A NettyLlmClient that takes a while to build each request, noting when each was handed to it and its stamp. */
    private static final class SlowToBuild implements LlmClient {
        final NettyLlmClient netty;
        final Map<String, Long> handedAt = new ConcurrentHashMap<>();
        final Map<String, Long> startedAt = new ConcurrentHashMap<>();

        SlowToBuild(NettyLlmClient netty) {
            this.netty = netty;
        }

        @Override
        public RequestHandle send(RequestSpec spec) {
            return send(spec, null);
        }

        @Override
        public RequestHandle send(RequestSpec spec, Runnable whenEnded) {
            long handed = System.nanoTime();
            try {
                Thread.sleep(5); // the body's build: it happens after the request was handed over
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            RequestHandle handle = whenEnded == null ? netty.send(spec) : netty.send(spec, whenEnded);
            handedAt.put(handle.clientRequestId(), handed);
            startedAt.put(handle.clientRequestId(), handle.startNanos());
            return handle;
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aRequestsSendIsTheClientsStartStampAfterItWasHandedOver() throws IOException {
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(2), Duration.ofMillis(1));
             NettyLlmClient netty = new NettyLlmClient(ClientConfig.builder(
                     EndpointUrls.chatCompletions(server.baseUrl()), "m").maxConnections(4).build())) {
            SlowToBuild client = new SlowToBuild(netty);
            List<RequestSpec> specs = IntStream.range(0, 8).mapToObj(i -> new RequestSpec(i, "prompt " + i, 10, 5))
                    .toList();
            ClosedLoopResult result = new ClosedLoopRunner(client, String::length)
                    .run(specs, new ClosedLoopSettings(2, Duration.ofSeconds(30)));

            assertEquals(8, result.timeline().size());
            long clock = result.clockStartNanos();
            assertTrue(clock != 0, "the runner gives its clock's start");
            for (ScheduledRecord r : result.timeline()) {
                assertTrue(r.record().succeeded(), r.record().toString());
                String id = r.record().clientRequestId();
                Long handed = client.handedAt.get(id);
                Long started = client.startedAt.get(id);
                assertNotNull(handed, id);
                long send = clock + r.actualSendOffsetNanos();
                // before: the stamp was taken when the slot freed, before the request was handed to the client
                assertTrue(send >= handed, id + ": the timeline's send is " + (handed - send)
                        + " ns before the request was handed to the client");
                assertEquals((long) started, send, id + ": the timeline's send is the client's start stamp");
                assertEquals(r.actualSendOffsetNanos(), r.intendedSendOffsetNanos(), "a closed loop has no lag");
                assertEquals(0, r.sendLagNanos());
            }
        }
    }
}

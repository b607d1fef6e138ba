package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.PreparedRequest;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The open loop builds each request before its arrival ({@link LlmClient#prepare}), so the arrival's instant holds
 * the send alone: building is neither send lag nor TTFT. Real sockets, a timed SSE server.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OpenLoopPreparedAheadSocketTest {

    private static final long BUILD_MILLIS = 30;

    private static List<RequestSpec> specs(int n) {
        return IntStream.range(0, n).mapToObj(i -> new RequestSpec(i, "prompt " + i, 10, 5)).toList();
    }

    /** A NettyLlmClient whose prepare takes 30 ms (a large body), noting when each prepare returned and each send. */
    private static final class SlowToPrepare implements LlmClient {
        final NettyLlmClient netty;
        final Map<String, Long> preparedAt = new ConcurrentHashMap<>();
        final Map<String, Long> startedAt = new ConcurrentHashMap<>();
        final AtomicInteger discarded = new AtomicInteger();
        final AtomicInteger prepared = new AtomicInteger();

        SlowToPrepare(NettyLlmClient netty) {
            this.netty = netty;
        }

        @Override
        public RequestHandle send(RequestSpec spec) {
            throw new AssertionError("the open loop sends what it prepared");
        }

        @Override
        public PreparedRequest prepare(RequestSpec spec, Runnable whenEnded) {
            try {
                Thread.sleep(BUILD_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            PreparedRequest ready = netty.prepare(spec, whenEnded);
            long readyAt = System.nanoTime();
            prepared.incrementAndGet();
            return new PreparedRequest() {
                @Override
                public RequestHandle send() {
                    RequestHandle handle = ready.send();
                    preparedAt.put(handle.clientRequestId(), readyAt);
                    startedAt.put(handle.clientRequestId(), handle.startNanos());
                    return handle;
                }

                @Override
                public void discard() {
                    discarded.incrementAndGet();
                    ready.discard();
                }
            };
        }

        @Override
        public long[] preconnect(int connections) {
            return netty.preconnect(connections);
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aRequestIsBuiltBeforeItsArrivalAndItsBuildIsNotSendLag() throws IOException {
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(5), Duration.ofMillis(1));
             NettyLlmClient netty = new NettyLlmClient(ClientConfig.builder(
                     EndpointUrls.chatCompletions(server.baseUrl()), "m").maxConnections(4).build())) {
            netty.send(specs(1).get(0)).completion().join(); // a cold client's first request is not the subject
            SlowToPrepare client = new SlowToPrepare(netty);
            // one arrival every 250 ms: each later arrival's request is built right after the previous send
            OpenLoopResult result = new OpenLoopRunner(client, String::length).run(specs(5),
                    OpenLoopSettings.builder(4).arrival(Arrival.constant()).maxRequests(5)
                            .timeout(Duration.ofSeconds(30)).build());

            assertEquals(5, result.records().size());
            assertEquals(6, server.requests());
            assertEquals(0, client.discarded.get());
            List<ScheduledRecord> timeline = result.measuredTimeline();
            int onTime = 0;
            for (int i = 0; i < timeline.size(); i++) {
                ScheduledRecord r = timeline.get(i);
                assertTrue(r.record().succeeded(), r.record().toString());
                String id = r.record().clientRequestId();
                Long start = client.startedAt.get(id);
                assertNotNull(start, id);
                long intended = start - r.startLagNanos(); // the start lag ends at the client's start stamp
                assertEquals(r.record().ttftNanos() + r.startLagNanos(), r.ttftFromIntendedNanos());
                if (i == 0) {
                    // the first arrival is due 2 ms after the call: its 30 ms build runs past it, and that is lag
                    assertTrue(r.sendLagNanos() >= TimeUnit.MILLISECONDS.toNanos(BUILD_MILLIS - 2),
                            "lag " + r.sendLagNanos());
                    continue;
                }
                long previousStart = client.startedAt.get(timeline.get(i - 1).record().clientRequestId());
                // judged when the previous send left time to build this one (a loaded machine may not)
                if (previousStart + TimeUnit.MILLISECONDS.toNanos(2 * BUILD_MILLIS) > intended) continue;
                onTime++;
                assertTrue(client.preparedAt.get(id) <= intended, "arrival " + i + " was built "
                        + (client.preparedAt.get(id) - intended) + " ns after its time");
            }
            assertTrue(onTime >= 1, "no arrival came after a send early enough to judge");
        }
    }

    @Test
    void aRequestBuiltForAnArrivalTheStopCameBeforeIsDiscardedUnsent() throws Exception {
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(5), Duration.ofMillis(1));
             NettyLlmClient netty = new NettyLlmClient(ClientConfig.builder(
                     EndpointUrls.chatCompletions(server.baseUrl()), "m").maxConnections(4).build())) {
            SlowToPrepare client = new SlowToPrepare(netty);
            OpenLoopRunner runner = new OpenLoopRunner(client, String::length);
            // one arrival every 20 s: the second is built at once and waits for its time, which the stop precedes
            Thread stopper = new Thread(() -> {
                while (client.prepared.get() < 2 || server.requests() < 1) Thread.onSpinWait();
                runner.stop();
            });
            stopper.start();
            OpenLoopResult result = runner.run(specs(4), OpenLoopSettings.builder(0.05)
                    .arrival(Arrival.constant()).maxRequests(4).timeout(Duration.ofSeconds(50)).build());
            stopper.join();

            assertEquals(1, server.requests());
            assertEquals(2, client.prepared.get());
            assertEquals(1, client.discarded.get(), "the second arrival's request was built, never sent");
            assertEquals(1, result.records().size());
        }
    }
}

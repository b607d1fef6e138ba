package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.impl.ConnectionPool;
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

/**
 * The QA's trace replay without the client warm-up: the pacer sent each arrival on time, but the request waited
 * 140 ms for an idle connection's event loop (a cold client) and reached the server that much late, while the send
 * lag, counted to the start stamp, said 0.1 ms. Here the real runner over real sockets, the event loop's take-over of
 * a pooled connection's request delayed 150 ms through {@link ConnectionPool#HAND_OFF_DELAY_PROPERTY}, arrivals
 * 400 ms apart against a server that answers at once: nothing else was in flight and no cap held them, so the delay
 * is the client's, and the send lag must count it; TTFT keeps counting from the start stamp.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClientDelaySendLagSocketTest {

    private static final long DELAY_MILLIS = 150;
    private static final int ARRIVALS = 4;

    @Test
    void aRequestHeldInTheClientAfterItsStartStampIsSentLate() throws IOException {
        OpenLoopResult result = run();
        List<ScheduledRecord> pooled = result.timeline().stream()
                .filter(r -> r.record().connectNanos() == RequestRecord.NEVER) // a connection it did not open
                .toList();
        assertTrue(pooled.size() >= 2, "arrivals 400 ms apart reuse the idle connection: " + result.timeline());
        for (ScheduledRecord r : pooled) {
            assertTrue(r.clientDelayNanos() >= DELAY_MILLIS * 1_000_000, r.toString());
            assertTrue(r.sendLagNanos() >= DELAY_MILLIS * 1_000_000, "send lag " + r.sendLagNanos() / 1e6 + " ms");
            assertEquals(r.startLagNanos() + r.clientDelayNanos(), r.sendLagNanos());
            assertEquals(r.actualSendOffsetNanos() + r.clientDelayNanos(), r.leftClientOffsetNanos());
            // TTFT from the start stamp holds the delay already: from the intended send it is not counted twice
            assertTrue(r.record().ttftNanos() >= DELAY_MILLIS * 1_000_000, r.toString());
            assertEquals(r.startLagNanos() + r.record().ttftNanos(), r.ttftFromIntendedNanos());
            assertEquals(r.startLagNanos() + r.record().e2eNanos(), r.e2eFromIntendedNanos());
            // the delay is the client's own, not a wait for a connection: it ends at the write
            assertTrue(r.clientDelayNanos() <= r.record().phases().requestWrittenNanos(), r.toString());
        }
        assertTrue(result.summary().sendLag().maxNanos() >= DELAY_MILLIS * 1e6,
                "the send-lag line's max: " + result.summary().sendLag());
    }

    /** Without the seam, every request's client delay is a part of its time to the write, never more. */
    @Test
    void theClientDelayIsWithinTheTimeToTheWrite() throws IOException {
        OpenLoopResult result = runWith(0);
        for (ScheduledRecord r : result.timeline()) {
            long written = r.record().phases().requestWrittenNanos();
            assertTrue(written >= 0, r.toString());
            assertTrue(r.clientDelayNanos() <= written, r.toString());
            assertEquals(r.startLagNanos() + r.clientDelayNanos(), r.sendLagNanos());
        }
    }

    private static OpenLoopResult run() throws IOException {
        return runWith(DELAY_MILLIS);
    }

    private static OpenLoopResult runWith(long delayMillis) throws IOException {
        String before = System.getProperty(ConnectionPool.HAND_OFF_DELAY_PROPERTY);
        System.setProperty(ConnectionPool.HAND_OFF_DELAY_PROPERTY, Long.toString(delayMillis));
        try (TimedSseServer server = TimedSseServer.start(Duration.ZERO, Duration.ZERO);
             NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(
                     EndpointUrls.chatCompletions(server.baseUrl()), "m").maxConnections(8).build())) {
            OpenLoopRunner runner = new OpenLoopRunner(client, String::length);
            OpenLoopSettings settings = OpenLoopSettings.builder(2.5).arrival(Arrival.constant())
                    .maxRequests(ARRIVALS).warmup(Warmup.none()).timeout(Duration.ofSeconds(30)).build();
            OpenLoopResult result = runner.run(specs(), settings);
            assertEquals(ARRIVALS, result.records().size());
            assertTrue(result.records().stream().allMatch(RequestRecord::succeeded), result.records().toString());
            return result;
        } finally {
            if (before == null) {
                System.clearProperty(ConnectionPool.HAND_OFF_DELAY_PROPERTY);
            } else {
                System.setProperty(ConnectionPool.HAND_OFF_DELAY_PROPERTY, before);
            }
        }
    }

    private static List<RequestSpec> specs() {
        return IntStream.range(0, ARRIVALS).mapToObj(i -> new RequestSpec(i, "prompt " + i, 10, 5)).toList();
    }
}

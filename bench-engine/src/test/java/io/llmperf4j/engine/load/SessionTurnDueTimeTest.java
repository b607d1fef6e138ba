package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.engine.testserver.TimedSseServer;
import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A later turn is due at its previous turn's end as the client stamped it (its start stamp plus its E2E) plus its
 * think time, whenever the runner's loop got round to the reply: the runner's thread is kept busy (each record's
 * listener call sleeps) while two sessions' replies come in, so the second reply waits in the queue, and that wait
 * must be send lag, not a later due time.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SessionTurnDueTimeTest {
    private static final long[] THINK_NANOS = {0, 15_000_000L, 5_000_000L};

    @Test
    void aClosedLoopTurnIsDueAtThePreviousTurnsStampedEndPlusItsThinkTime() throws Exception {
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(2), Duration.ofMillis(1));
             StampedClient client = new StampedClient(netty(server))) {
            ClosedLoopResult result = new SessionRunner(client, String::length).runClosed(workload(null),
                    new ClosedLoopSettings(2, OptionalInt.of(6), Duration.ofSeconds(30)), busy(), () -> false);

            assertDueAtThePreviousTurnsEnd(result.timeline(), result.clockStartNanos(), client.starts);
        }
    }

    @Test
    void aTraceTurnIsDueAtThePreviousTurnsStampedEndPlusItsDelay() throws Exception {
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(2), Duration.ofMillis(1));
             StampedClient client = new StampedClient(netty(server))) {
            OpenLoopResult result = new SessionRunner(client, String::length).runOpen(workload(new long[] {0, 0}),
                    OpenLoopSettings.builder(100).maxRequests(6).timeout(Duration.ofSeconds(30)).build(), busy(),
                    () -> false);

            assertEquals(2, result.summary().arrivalsScheduled());
            assertDueAtThePreviousTurnsEnd(result.timeline(), result.clockStartNanos(), client.starts);
        }
    }

    private static void assertDueAtThePreviousTurnsEnd(List<ScheduledRecord> timeline, long clockStart,
                                                       Map<String, Long> starts) {
        assertEquals(6, timeline.size());
        assertTrue(timeline.stream().allMatch(r -> r.record().succeeded()), timeline::toString);
        assertNotEquals(0, clockStart);
        int later = 0;
        for (ScheduledRecord r : timeline) {
            int turn = r.record().tags().turn();
            assertEquals(r.actualSendOffsetNanos() - r.intendedSendOffsetNanos(), r.startLagNanos());
            assertTrue(r.sendLagNanos() >= 0, "sent before it was due: " + r);
            if (turn == 0) continue;
            ScheduledRecord previous = timeline.stream()
                    .filter(p -> p.record().tags().sessionId().equals(r.record().tags().sessionId())
                            && p.record().tags().turn() == turn - 1).findFirst().orElseThrow();
            Long previousStart = starts.get(previous.record().clientRequestId());
            assertNotNull(previousStart, "the client stamped its start");
            long previousEnd = previousStart + previous.record().e2eNanos();
            // the same stamps the runner used: exact to the nanosecond
            assertEquals(previousEnd + THINK_NANOS[turn], clockStart + r.intendedSendOffsetNanos(),
                    r.record().tags().sessionId() + " turn " + turn);
            later++;
        }
        assertEquals(4, later);
    }

    /** Two sessions of three turns; think times 15 ms before turn 1, 5 ms before turn 2. */
    private static PacedWorkload workload(long[] traceStarts) {
        List<RequestSpec> specs = new ArrayList<>();
        for (int s = 0; s < 2; s++) {
            for (int t = 0; t < 3; t++) {
                specs.add(new RequestSpec(specs.size(), "u" + s + "." + t, 2, 3,
                        new RequestInputs("sys", List.of(), List.of(), "s" + s, t)));
            }
        }
        PacedWorkload.ThinkTime think = turn -> THINK_NANOS[turn.inputs().turn()];
        return traceStarts == null ? PacedWorkload.sessions(specs, think)
                : PacedWorkload.trace(specs, traceStarts, think);
    }

    /** Each record keeps the runner's thread 40 ms: the other session's reply waits behind it. */
    private static RecordListener busy() {
        return record -> {
            try {
                Thread.sleep(40);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        };
    }

    private static NettyLlmClient netty(TimedSseServer server) {
        return new NettyLlmClient(ClientConfig.builder(EndpointUrls.chatCompletions(server.baseUrl()), "m")
                .maxConnections(2).build());
    }

    /** The real client, with each request's start stamp kept by its request id. */
    private static final class StampedClient implements LlmClient {
        final LlmClient delegate;
        final Map<String, Long> starts = new ConcurrentHashMap<>();

        StampedClient(LlmClient delegate) {
            this.delegate = delegate;
        }

        @Override
        public RequestHandle send(RequestSpec spec) {
            RequestHandle handle = delegate.send(spec);
            assertNotEquals(RequestRecord.NEVER, handle.startNanos());
            starts.put(handle.clientRequestId(), handle.startNanos());
            return handle;
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}

package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.PreparedRequest;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.engine.testserver.TimedSseServer;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.llmperf4j.engine.load.TestSessions.netty;
import static io.llmperf4j.engine.load.TestSessions.workload;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A session's later turn (its history known once the previous turn ended) is built before it is due, so its due
 * instant holds the send alone: building a long conversation's body is neither send lag nor TTFT. A turn built for a
 * due time the stop came before is given back unsent. Real sockets, a timed SSE server.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SessionTurnPreparedAheadSocketTest {

    @Test
    void aLaterTurnIsBuiltBeforeItIsDue() throws Exception {
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(2), Duration.ofMillis(1));
             BuildStamps client = new BuildStamps(netty(server))) {
            ClosedLoopResult result = new SessionRunner(client, String::length).runClosed(workload(2, 3, 300),
                    new ClosedLoopSettings(2, OptionalInt.of(6), Duration.ofSeconds(30)), RecordListener.NONE,
                    () -> false);

            assertEquals(6, result.timeline().size());
            assertEquals(6, server.requests());
            assertEquals(0, client.discarded.get());
            int laterTurns = 0;
            int builtAhead = 0;
            for (ScheduledRecord r : result.timeline()) {
                assertTrue(r.record().succeeded(), r.record().toString());
                String id = r.record().clientRequestId();
                Long builtAt = client.builtAt.get(id);
                assertNotNull(builtAt, id);
                long intended = result.clockStartNanos() + r.intendedSendOffsetNanos();
                if (r.record().tags().turn() == 0) {
                    assertTrue(builtAt >= intended, "a first turn is built when due");
                    continue;
                }
                laterTurns++;
                // the loop wakes 20 ms before a turn is due to build it; a loaded machine may wake it later, and
                // then the turn is built in its send, its lag counted
                if (builtAt <= intended) builtAhead++;
                else assertTrue(r.sendLagNanos() > 0, r.toString());
            }
            assertEquals(4, laterTurns);
            assertTrue(builtAhead >= 1, "no later turn was built before it was due");
        }
    }

    @Test
    void aTurnBuiltForADueTimeTheStopCameBeforeIsDiscardedUnsent() throws Exception {
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(2), Duration.ofMillis(1));
             BuildStamps client = new BuildStamps(netty(server))) {
            SessionRunner runner = new SessionRunner(client, String::length);
            // one session, 2 s of think time: its second turn is built 20 ms before it is due, and the stop comes
            // in between
            java.util.concurrent.atomic.AtomicBoolean ran = new java.util.concurrent.atomic.AtomicBoolean();
            Thread stopper = new Thread(() -> {
                while (client.preparedAhead.get() < 1 && !ran.get()) Thread.onSpinWait();
                runner.stop();
            });
            stopper.start();
            ClosedLoopResult result = runner.runClosed(workload(1, 3, 2_000),
                    new ClosedLoopSettings(1, OptionalInt.of(3), Duration.ofSeconds(30)), RecordListener.NONE,
                    () -> false);
            ran.set(true);
            stopper.join();

            assertEquals(1, client.preparedAhead.get(), "the second turn was built before it was due");
            assertEquals(1, server.requests());
            assertEquals(1, result.records().size());
            assertEquals(1, client.discarded.get(), "the second turn was built, never sent");
        }
    }


    /** The real client, noting when each request was built (by request id) and each built request given back. */
    private static final class BuildStamps implements LlmClient {
        final NettyLlmClient netty;
        final Map<String, Long> builtAt = new ConcurrentHashMap<>();
        final AtomicInteger preparedAhead = new AtomicInteger();
        final AtomicInteger discarded = new AtomicInteger();

        BuildStamps(NettyLlmClient netty) {
            this.netty = netty;
        }

        @Override
        public RequestHandle send(RequestSpec spec) {
            return send(spec, null);
        }

        @Override
        public RequestHandle send(RequestSpec spec, Runnable whenEnded) {
            long at = System.nanoTime();
            RequestHandle handle = netty.send(spec, whenEnded);
            builtAt.put(handle.clientRequestId(), at);
            return handle;
        }

        @Override
        public PreparedRequest prepare(RequestSpec spec, Runnable whenEnded) {
            long at = System.nanoTime();
            PreparedRequest ready = netty.prepare(spec, whenEnded);
            preparedAhead.incrementAndGet();
            return new PreparedRequest() {
                @Override
                public RequestHandle send() {
                    RequestHandle handle = ready.send();
                    builtAt.put(handle.clientRequestId(), at);
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
        public void close() {
            netty.close();
        }
    }
}

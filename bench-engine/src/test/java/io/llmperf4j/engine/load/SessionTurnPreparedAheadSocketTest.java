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
 * A session's later turn (its history known once the previous turn ended), and in an open loop its first turn (its
 * start scheduled), is built before it is due, so its due instant holds the send alone: building a long
 * conversation's body (or a long first prompt) is neither send lag nor TTFT. A closed loop's first turn is built
 * when its slot frees, as the closed loop of single requests builds its next request. A turn built for a due time
 * the stop or the deadline came before is given back unsent. Real sockets, a timed SSE server.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SessionTurnPreparedAheadSocketTest {

    /** A build-ahead no loaded machine's late wake-up overruns. */
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

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
            // one session, 2 s of think time: its second turn is built (here 1 s) before it is due, and the stop
            // comes as it is built
            SessionRunner runner = new SessionRunner(client, String::length, CancelGrace.GRACE, SECOND);
            client.onPrepared = n -> runner.stop();
            ClosedLoopResult result = runner.runClosed(workload(1, 3, 2_000),
                    new ClosedLoopSettings(1, OptionalInt.of(3), Duration.ofSeconds(30)), RecordListener.NONE,
                    () -> false);

            assertEquals(1, client.preparedAhead.get(), "the second turn was built before it was due");
            assertEquals(1, server.requests());
            assertEquals(1, result.records().size());
            assertEquals(1, client.discarded.get(), "the second turn was built, never sent");
            assertEquals(0, client.heldUnsent(), "every built request sent or given back");
        }
    }

    @Test
    void anOpenLoopBuildsASessionsFirstTurnBeforeItsStart() throws Exception {
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(2), Duration.ofMillis(1));
             BuildStamps client = new BuildStamps(netty(server))) {
            // three sessions of two turns, one starting every 100 ms (the first at the clock's start)
            OpenLoopResult result = new SessionRunner(client, String::length).runOpen(workload(3, 2, 50),
                    OpenLoopSettings.builder(10).arrival(Arrival.constant()).maxRequests(6).build(),
                    RecordListener.NONE, () -> false);

            assertEquals(6, result.timeline().size());
            assertEquals(6, server.requests());
            assertEquals(0, result.arrivalsNotSent());
            assertEquals(0, client.discarded.get());
            assertEquals(0, client.heldUnsent());
            int firstTurns = 0;
            int builtAhead = 0;
            for (ScheduledRecord r : result.timeline()) {
                assertTrue(r.record().succeeded(), r.record().toString());
                if (r.record().tags().turn() != 0) continue;
                firstTurns++;
                long builtAt = client.builtAt.get(r.record().clientRequestId());
                long intended = result.clockStartNanos() + r.intendedSendOffsetNanos();
                // the loop wakes 20 ms before a session's start to build its first turn; a loaded machine may wake
                // it later, and then the turn is built in its send, its lag counted
                if (builtAt <= intended) builtAhead++;
                else assertTrue(r.sendLagNanos() > 0, r.toString());
            }
            assertEquals(3, firstTurns);
            assertTrue(builtAhead >= 1, "no first turn was built before it was due");
        }
    }

    @Test
    void aFirstTurnBuiltForAStartTheStopCameBeforeIsGivenBack() throws Exception {
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(2), Duration.ofMillis(1));
             BuildStamps client = new BuildStamps(netty(server))) {
            // two one-turn sessions, 2 s apart: the second's first turn is built (here 1 s) before its start, and
            // the stop comes as it is built
            SessionRunner runner = new SessionRunner(client, String::length, CancelGrace.GRACE, SECOND);
            client.onPrepared = n -> {
                if (n == 2) runner.stop();
            };
            OpenLoopResult result = runner.runOpen(workload(2, 1, 0),
                    OpenLoopSettings.builder(0.5).arrival(Arrival.constant()).maxRequests(2).build(),
                    RecordListener.NONE, () -> false);

            assertEquals(2, client.preparedAhead.get(), "both first turns were built before their starts");
            assertEquals(1, server.requests());
            assertEquals(1, result.records().size());
            assertEquals(1, client.discarded.get(), "the second session's first turn was built, never sent");
            assertEquals(0, client.heldUnsent(), "every built request sent or given back");
            assertEquals(1, result.arrivalsNotSent(), "the second session never started");
            assertEquals(0, result.turnsNotSent(), "no session in progress had turns left");
        }
    }

    @Test
    void aFirstTurnDueAfterTheDeadlineIsNeverSentAndNothingBuiltIsKept() throws Exception {
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(2), Duration.ofMillis(1));
             BuildStamps client = new BuildStamps(netty(server))) {
            // the second session starts 10 ms after the 300 ms deadline: built (or not) 20 ms before, never sent
            long[] starts = {0, TimeUnit.MILLISECONDS.toNanos(310)};
            PacedWorkload trace = PacedWorkload.trace(workload(2, 1, 0), starts, turn -> 0);
            OpenLoopResult result = new SessionRunner(client, String::length).runOpen(trace,
                    OpenLoopSettings.builder(2).maxRequests(2).timeout(Duration.ofMillis(300)).build(),
                    RecordListener.NONE, () -> false);

            assertEquals(1, server.requests());
            assertEquals(1, result.records().size());
            assertEquals(1, result.arrivalsNotSent());
            assertEquals(0, client.heldUnsent(), "a first turn built for after the deadline was given back");
        }
    }


    /**
     * The real client, noting when each request was built (by request id), each built request sent or given back,
     * and telling {@link #onPrepared} the count of requests built ahead as each is.
     */
    private static final class BuildStamps implements LlmClient {
        final NettyLlmClient netty;
        final Map<String, Long> builtAt = new ConcurrentHashMap<>();
        final AtomicInteger preparedAhead = new AtomicInteger();
        final AtomicInteger sentPrepared = new AtomicInteger();
        final AtomicInteger discarded = new AtomicInteger();
        volatile java.util.function.IntConsumer onPrepared = n -> { };

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
            onPrepared.accept(preparedAhead.incrementAndGet());
            return new PreparedRequest() {
                @Override
                public RequestHandle send() {
                    RequestHandle handle = ready.send();
                    sentPrepared.incrementAndGet();
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

        /** Requests built ahead and neither sent nor given back: 0 once a run has ended. */
        int heldUnsent() {
            return preparedAhead.get() - sentPrepared.get() - discarded.get();
        }

        @Override
        public void close() {
            netty.close();
        }
    }
}

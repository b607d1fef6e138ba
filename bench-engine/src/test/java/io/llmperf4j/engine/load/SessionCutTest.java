package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.testserver.TimedSseServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.llmperf4j.engine.load.TestSessions.netty;
import static io.llmperf4j.engine.load.TestSessions.workload;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sessions run cut while its sessions think or wait to start (the QA of stop 42): its window runs to the cut, as an
 * open loop's does when arrivals are still due, not to the last answer (a closed loop of 8 sessions thinking 4 s, cut
 * at 3 s, said 8 requests in 0.188 s, 42 req/s); and its turns not sent are those of the sessions that had sent one
 * (a session started as a slot freed, its first turn never sent, added its 6 turns). Real sockets.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SessionCutTest {

    @Test
    void aRunCutWhileItsSessionsThinkHasItsWindowToTheCut() throws Exception {
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(2), Duration.ofMillis(1));
             NettyLlmClient client = netty(server)) {
            // 2 sessions of 3 turns, 5 s of think time before each later turn; the 1 s deadline comes while both think
            ClosedLoopResult result = new SessionRunner(client, String::length).runClosed(workload(2, 3, 5_000),
                    new ClosedLoopSettings(2, OptionalInt.of(6), Duration.ofSeconds(1)), RecordListener.NONE,
                    () -> false);

            assertTrue(result.timedOut());
            assertEquals(2, result.records().size());
            assertEquals(4, result.turnsNotSent());
            assertTrue(result.durationNanos() >= TimeUnit.SECONDS.toNanos(1), "the window ends at the deadline, "
                    + "not at the last answer: " + result.durationNanos() + " ns");
        }
    }

    @Test
    void anOpenLoopCutWhileItsSessionsThinkCountsTheirTurnsNotSent() throws Exception {
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(2), Duration.ofMillis(1));
             NettyLlmClient client = netty(server)) {
            // 4 sessions of 3 turns start 50 ms apart and think 5 s: the 1 s deadline finds 8 turns unsent
            OpenLoopResult result = new SessionRunner(client, String::length).runOpen(workload(4, 3, 5_000),
                    OpenLoopSettings.builder(20).arrival(Arrival.constant()).maxRequests(12)
                            .timeout(Duration.ofSeconds(1)).build(), RecordListener.NONE, () -> false);

            assertTrue(result.timedOut());
            assertEquals(4, result.records().size());
            assertEquals(8, result.turnsNotSent(), "the QA's open loop counted them nowhere");
            assertTrue(result.durationNanos() >= TimeUnit.SECONDS.toNanos(1), "the window runs from the clock's "
                    + "start to the deadline: " + result.durationNanos() + " ns");
        }
    }

    @Test
    void aSessionWhoseFirstTurnTheStopCameBeforeHasNoTurnsNotSent() throws Exception {
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(2), Duration.ofMillis(1));
             NettyLlmClient client = netty(server)) {
            AtomicReference<SessionRunner> runner = new AtomicReference<>();
            AtomicReference<Integer> seen = new AtomicReference<>(0);
            // one slot; the stop comes as session 0's last reply is counted, before the slot's next session sends
            // (the listener hears a record only after the sends it made due)
            runner.set(new SessionRunner(client, text -> {
                if (seen.updateAndGet(n -> n + 1) == 3) runner.get().stop();
                return text.length();
            }));
            ClosedLoopResult result = runner.get().runClosed(workload(3, 3, 0),
                    new ClosedLoopSettings(1, OptionalInt.of(9), Duration.ofSeconds(30)), RecordListener.NONE,
                    () -> false);

            assertTrue(result.stopped());
            assertEquals(3, result.records().size());
            assertEquals(3, server.requests());
            assertEquals(0, result.turnsNotSent(), "the next session never sent a turn: it was not in progress");
        }
    }

}

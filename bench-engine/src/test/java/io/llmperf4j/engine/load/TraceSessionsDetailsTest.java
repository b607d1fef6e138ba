package io.llmperf4j.engine.load;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A trace with sessions describes its session starts, as its rate counts them; one without is unchanged. */
class TraceSessionsDetailsTest {

    @Test
    void aTraceWithSessionsSaysHowManySessionsStartOverTheirSpan() {
        Arrival.Trace t = new Arrival.Trace("mooncake:t.jsonl", 5, Duration.ofMillis(500), 1, null, 2,
                Duration.ofMillis(200));
        assertEquals("mooncake:t.jsonl (2 sessions (5 requests) starting over 0.2 s, speedup 1)", t.details());
        assertEquals("trace replay of mooncake:t.jsonl (2 sessions (5 requests) starting over 0.2 s, speedup 1), "
                + "mean 5 sessions/s", OpenLoopSettings.builder(5).arrival(t).maxRequests(5).build().describe());
    }

    @Test
    void sessionsStartingAtOneInstantSayItInsteadOfARate() {
        Arrival.Trace one = new Arrival.Trace("mooncake:t.jsonl", 2, Duration.ofMillis(300), 2, Duration.ofSeconds(1),
                1, Duration.ZERO);
        assertEquals("mooncake:t.jsonl (1 session (2 requests) starting over 0 s, speedup 2, first 1 s)",
                one.details());
        assertEquals("trace replay of mooncake:t.jsonl (1 session (2 requests) starting over 0 s, speedup 2, first "
                + "1 s), its one session at t=0",
                OpenLoopSettings.builder(1).arrival(one).maxRequests(2).build().describe());
        Arrival.Trace two = new Arrival.Trace("x", 4, Duration.ofMillis(300), 1, null, 2, Duration.ZERO);
        assertEquals("trace replay of x (2 sessions (4 requests) starting over 0 s, speedup 1), all 2 sessions start "
                + "at t=0", OpenLoopSettings.builder(2).arrival(two).maxRequests(4).build().describe());
    }

    @Test
    void requestsWithoutASessionAreSingleRequestsNotSessions() {
        // sessions a and b (2 turns each) and 3 requests without a session: 5 arrivals over 0.25 s
        Arrival.Trace t = new Arrival.Trace("mooncake:t.jsonl", 7, Duration.ofMillis(300), 1, null, 2,
                Duration.ofMillis(250), 3);
        assertEquals(3, t.singles());
        assertEquals("mooncake:t.jsonl (2 sessions (4 requests) and 3 single requests starting over 0.25 s, "
                + "speedup 1)", t.details());
        assertEquals("trace replay of mooncake:t.jsonl (2 sessions (4 requests) and 3 single requests starting over "
                + "0.25 s, speedup 1), mean 16 arrivals/s",
                OpenLoopSettings.builder(16).arrival(t).maxRequests(7).build().describe());
        Arrival.Trace once = new Arrival.Trace("x", 3, Duration.ofMillis(100), 1, null, 1, Duration.ZERO, 1);
        assertEquals("trace replay of x (1 session (2 requests) and 1 single request starting over 0 s, speedup 1), "
                + "all 2 arrivals start at t=0",
                OpenLoopSettings.builder(2).arrival(once).maxRequests(3).build().describe());
        assertThrows(IllegalArgumentException.class,
                () -> new Arrival.Trace("x", 3, Duration.ZERO, 1, null, 0, null, 1), "single requests need sessions");
        assertThrows(IllegalArgumentException.class,
                () -> new Arrival.Trace("x", 3, Duration.ZERO, 1, null, 2, Duration.ZERO, 2),
                "more arrivals than requests");
    }

    @Test
    void aTraceWithoutSessionsIsDescribedAsBefore() {
        Arrival.Trace t = new Arrival.Trace("mooncake:t.jsonl", 5, Duration.ofMillis(1500), 2, null);
        assertEquals(0, t.sessions());
        assertEquals("mooncake:t.jsonl (5 requests over 1.5 s, speedup 2)", t.details());
        assertEquals("trace replay of mooncake:t.jsonl (5 requests over 1.5 s, speedup 2), mean 2.67 req/s",
                OpenLoopSettings.builder(8.0 / 3).arrival(t).maxRequests(5).build().describe());
        assertThrows(NullPointerException.class, () -> new Arrival.Trace("x", 2, Duration.ZERO, 1, null, 1, null));
    }
}

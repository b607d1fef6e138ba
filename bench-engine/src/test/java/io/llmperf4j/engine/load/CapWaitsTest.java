package io.llmperf4j.engine.load;

import io.llmperf4j.model.RequestRecord;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Whose a capped loop's send lag was, from a timeline given by hand (ms as ns: the values, not the clock). */
class CapWaitsTest {

    /** Arrival {@code i} due at {@code due}, sent at {@code sent}, over {@code e2e} later. */
    private static ScheduledRecord arrival(int i, long due, long sent, long e2e) {
        RequestRecord r = new RequestRecord(i, "r" + i, null, 0, e2e / 2, e2e * 3 / 4, e2e, 2,
                new long[] {e2e / 2, e2e * 3 / 4}, "ab", 10, 5, -1, 10, 2, "stop", null);
        return new ScheduledRecord(r, i, due, sent, false);
    }

    @Test
    void inFlightCountsFromTheSendToTheEnd() {
        CapWaits w = CapWaits.of(2, List.of(arrival(0, 0, 0, 100), arrival(1, 10, 10, 100)));
        assertEquals(0, w.inFlightAt(-1));
        assertEquals(1, w.inFlightAt(0));
        assertEquals(2, w.inFlightAt(50));
        assertEquals(1, w.inFlightAt(100), "the first ended at 100");
        assertEquals(0, w.inFlightAt(110));
    }

    /** A cap of 1 and requests of 100 against arrivals 50 apart: each arrival waits for the one before. */
    @Test
    void lagSpentWithTheCapFullIsTheCaps() {
        List<ScheduledRecord> timeline = List.of(arrival(0, 0, 0, 100), arrival(1, 50, 100, 100),
                arrival(2, 100, 200, 100), arrival(3, 150, 300, 100));
        CapWaits w = CapWaits.of(1, timeline);
        assertTrue(timeline.subList(1, 4).stream().allMatch(w::foundFull));
        assertTrue(w.heldMostOfTheLag(timeline));
        assertFalse(CapWaits.of(2, timeline).heldMostOfTheLag(timeline), "a cap of 2 was never full");
    }

    /** A pacer late by 100 each send while one short request at a time is in flight: the lag is the client's. */
    @Test
    void lagWithTheCapNotFullIsNotTheCaps() {
        List<ScheduledRecord> timeline = List.of(arrival(0, 0, 101, 10), arrival(1, 50, 201, 10),
                arrival(2, 100, 301, 10), arrival(3, 150, 401, 10));
        CapWaits w = CapWaits.of(1, timeline);
        assertFalse(timeline.stream().anyMatch(w::foundFull));
        assertFalse(w.heldMostOfTheLag(timeline));
        // one arrival due while a late send was on the wire found the cap full: a minority of the lag
        List<ScheduledRecord> once = List.of(arrival(0, 0, 100, 10), arrival(1, 50, 201, 10),
                arrival(2, 105, 301, 10), arrival(3, 150, 401, 10));
        CapWaits w1 = CapWaits.of(1, once);
        assertTrue(w1.foundFull(once.get(2)));
        assertFalse(w1.heldMostOfTheLag(once));
        assertFalse(w.heldMostOfTheLag(List.of(arrival(0, 0, 0, 10))), "no lag at all");
    }
    /**
     * A cap of 4 in front of a service with room: requests sent with the cap full end as fast as those sent alone
     * (100 each), so the cap was the limit; one whose requests, once the cap filled, waited in its queue (300 each:
     * two slots behind a cap of 4 and more) may have been the limit itself.
     */
    @Test
    void theServiceMayHaveSlowedWhenRequestsSentWithTheCapFullEndSlower() {
        List<ScheduledRecord> room = new java.util.ArrayList<>();
        List<ScheduledRecord> queued = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) { // sent 1, 2 in flight: at most half the cap
            room.add(arrival(i, i * 200L, i * 200L, 100));
            queued.add(arrival(i, i * 200L, i * 200L, 100));
        }
        for (int i = 4; i < 12; i++) { // a burst: four in flight each
            long sent = 1_000 + (i - 4) / 4 * 1_000L;
            room.add(arrival(i, sent, sent, 100));
            queued.add(arrival(i, sent, sent, 300));
        }
        assertFalse(CapWaits.of(4, room).serviceMayHaveSlowed(room), "the cap's: 100 at the cap as alone");
        assertTrue(CapWaits.of(4, queued).serviceMayHaveSlowed(queued), "300 at the cap against 100: 3x");
        assertTrue(CapWaits.of(4, room).serviceMayHaveSlowed(room.subList(4, 12)),
                "none sent with few in flight: no sign the service had room");
        assertFalse(CapWaits.of(1, queued).serviceMayHaveSlowed(queued), "one at a time is the cap's");
    }
}

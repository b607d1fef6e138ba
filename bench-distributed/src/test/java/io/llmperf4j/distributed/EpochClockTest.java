package io.llmperf4j.distributed;

import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The wall clock against {@link System#nanoTime()}, on two made-up clocks whose true pairing is known. */
class EpochClockTest {
    /** Where the made-up nanoTime and wall clock start (nanoseconds), and how long each read takes. */
    private static final long NANO_ORIGIN = 7_000_000_000L;
    private static final long WALL_ORIGIN = 1_765_000_000_000_000_000L;
    private static final long READ_NANOS = 40;
    private static final long PREEMPTION = 1_090_000L;

    /**
     * One true time read by both clocks; the thread is descheduled for {@link #PREEMPTION} before the reads counted
     * (from 0) in {@code preemptedBefore}.
     */
    private static final class Clocks {
        private final Set<Integer> preemptedBefore;
        private long now;
        private int reads;

        Clocks(Set<Integer> preemptedBefore) {
            this.preemptedBefore = preemptedBefore;
        }

        private long tick() {
            if (preemptedBefore.contains(reads++)) now += PREEMPTION;
            now += READ_NANOS;
            return now;
        }

        long nanoTime() {
            return NANO_ORIGIN + tick();
        }

        long epochMicros() {
            return (WALL_ORIGIN + tick()) / 1_000L;
        }

        /** The nanoTime at which the wall clock reads {@code epochMicros}. */
        static long trueNanoTimeOf(long epochMicros) {
            return NANO_ORIGIN + epochMicros * 1_000L - WALL_ORIGIN;
        }
    }

    /**
     * A pair read as the worker read it before (nanoTime, then the wall clock) with a 1.09 ms preemption between
     * them is 1.09 ms off, as the worker's part was on a loaded machine; the anchor passes that try over for a clean
     * one, its pairing within the wall clock's microsecond.
     */
    @Test
    void aTryPreemptedBetweenItsReadsIsPassedOver() {
        Clocks single = new Clocks(Set.of(1));
        long before = single.nanoTime();
        long wall = single.epochMicros();
        long start = wall + 100_000; // a shared instant 100 ms ahead
        long singlePairTarget = before + (start - wall) * 1_000L;
        assertEquals(-PREEMPTION, Math.round((singlePairTarget - Clocks.trueNanoTimeOf(start)) / 10_000.0) * 10_000L,
                "the single pair: the instant placed a preemption early");

        for (Set<Integer> preempted : Set.of(Set.of(1), Set.of(2), Set.of(1, 5, 8, 11))) {
            Clocks clocks = new Clocks(preempted);
            EpochClock.Anchor anchor = EpochClock.anchor(clocks::nanoTime, clocks::epochMicros);
            assertEquals(2 * READ_NANOS, anchor.spreadNanos(), "a clean try is kept, preempted " + preempted);
            long off = anchor.nanoTimeOf(start) - Clocks.trueNanoTimeOf(start);
            assertTrue(Math.abs(off) < 1_000, "off by " + off + " ns, preempted " + preempted);
        }
    }

    @Test
    void theTwoConversionsAreEachOthersInverse() {
        Clocks clocks = new Clocks(Set.of());
        EpochClock.Anchor anchor = EpochClock.anchor(clocks::nanoTime, clocks::epochMicros);
        for (long micros : new long[] {anchor.epochMicros() - 5_000_000, anchor.epochMicros(),
                anchor.epochMicros() + 123_456}) {
            assertEquals(micros, anchor.epochMicrosOf(anchor.nanoTimeOf(micros)));
        }
        // a nanoTime before the anchor's, not a whole microsecond away, is in the microsecond before it
        assertEquals(anchor.epochMicros() - 1, anchor.epochMicrosOf(anchor.nanoTime() - 1));
        assertEquals(anchor.epochMicros(), anchor.epochMicrosOf(anchor.nanoTime() + 999));
    }
}

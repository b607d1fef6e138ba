package io.llmperf4j.distributed;

import java.time.Instant;
import java.util.function.LongSupplier;

/** The wall clock in microseconds since the epoch (as {@code RequestRecord.startEpochMicros}). */
final class EpochClock {
    /** Reads of the pair an {@link #anchor()} chooses from: one preempted read is passed over for a clean one. */
    static final int ANCHOR_TRIES = 5;

    private EpochClock() {
    }

    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000L;
    }

    /** This machine's wall clock and its {@link System#nanoTime()} read together, as the other {@code anchor} says. */
    static Anchor anchor() {
        return anchor(System::nanoTime, EpochClock::nowMicros);
    }

    /**
     * The wall clock paired with the {@code nanoTime} it was read at: each try reads {@code nanoTime}, the wall clock,
     * then {@code nanoTime} again, and pairs the wall reading with the middle of the two; the try with the fewest
     * nanoseconds between them is kept. A single pair is off by whatever came between its two reads (a thread
     * descheduled there on a loaded machine, or stopped for a GC: tries of 9 to 57 ms were passed over at load
     * average 15), and every conversion through it inherits that: the worker's start instant moved its whole part
     * on the shared timeline by it. The middle of a clean try also removes the few microseconds a pair read in one
     * order leaned by.
     */
    static Anchor anchor(LongSupplier nanoTime, LongSupplier epochMicros) {
        Anchor best = null;
        for (int i = 0; i < ANCHOR_TRIES; i++) {
            long before = nanoTime.getAsLong();
            long wall = epochMicros.getAsLong();
            long after = nanoTime.getAsLong();
            Anchor a = new Anchor(wall, before + (after - before) / 2, after - before);
            if (best == null || a.spreadNanos() < best.spreadNanos()) best = a;
        }
        return best;
    }

    /**
     * A wall-clock instant and the {@link System#nanoTime()} of the same instant, to convert between the two clocks.
     *
     * @param spreadNanos the nanoseconds between the reads around the wall clock's: the pairing is within half that
     */
    record Anchor(long epochMicros, long nanoTime, long spreadNanos) {
        /** {@code atEpochMicros} (the wall clock) on {@link System#nanoTime()}. */
        long nanoTimeOf(long atEpochMicros) {
            return nanoTime + (atEpochMicros - epochMicros) * 1_000L;
        }

        /** {@code atNanoTime} ({@link System#nanoTime()}) on the wall clock, in microseconds. */
        long epochMicrosOf(long atNanoTime) {
            return epochMicros + Math.floorDiv(atNanoTime - nanoTime, 1_000L);
        }
    }
}

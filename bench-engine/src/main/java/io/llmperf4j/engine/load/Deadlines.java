package io.llmperf4j.engine.load;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Durations as nanoseconds for {@code System.nanoTime()} deadlines. */
final class Deadlines {
    /** Large enough for any run, small enough that {@code start + limit} cannot overflow. */
    static final long MAX_NANOS = Long.MAX_VALUE / 4;
    /** The last stretch before an instant is spun: {@code parkNanos} wakes late, by milliseconds on a busy machine. */
    private static final long SPIN_NANOS = 1_000_000L;

    private Deadlines() {
    }

    /** Waits until {@code System.nanoTime()} reaches {@code instantNanos}, or until {@code stop} says so. */
    static void await(long instantNanos, BooleanSupplier stop) {
        long remaining;
        while ((remaining = instantNanos - System.nanoTime()) > 0 && !stop.getAsBoolean()) {
            if (remaining > 2 * SPIN_NANOS) {
                LockSupport.parkNanos(Math.min(remaining - SPIN_NANOS, SPIN_NANOS * 10)); // a stop is seen within 10 ms
            } else {
                Thread.yield(); // not onSpinWait: two spinners on a busy machine must not keep each other off the cores
            }
        }
    }

    /** {@code duration} in nanoseconds, capped at {@link #MAX_NANOS}. */
    static long cappedNanos(Duration duration) {
        return duration.compareTo(Duration.ofNanos(MAX_NANOS)) > 0 ? MAX_NANOS : duration.toNanos();
    }
}

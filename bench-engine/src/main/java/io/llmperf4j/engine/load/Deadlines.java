package io.llmperf4j.engine.load;

import java.time.Duration;

/** Durations as nanoseconds for {@code System.nanoTime()} deadlines. */
final class Deadlines {
    /** Large enough for any run, small enough that {@code start + limit} cannot overflow. */
    static final long MAX_NANOS = Long.MAX_VALUE / 4;

    private Deadlines() {
    }

    /** {@code duration} in nanoseconds, capped at {@link #MAX_NANOS}. */
    static long cappedNanos(Duration duration) {
        return duration.compareTo(Duration.ofNanos(MAX_NANOS)) > 0 ? MAX_NANOS : duration.toNanos();
    }
}

package io.llmperf4j.engine.load;

import java.time.Duration;
import java.util.Objects;

/**
 * The start of a run whose records are kept apart and excluded from results (JMH: "warmup iterations are not
 * counted towards the benchmark score"). The load does not pause between warmup and measurement: the measured window
 * starts with the first measured request, so it begins at steady state instead of with a thundering herd.
 * Warmup time counts against the run's timeout.
 * <ul>
 *   <li>closed loop: the first {@code count} requests sent, or every request sent before {@code duration} has passed
 *       since the run started, are warmup; the measured window starts at the first measured send;</li>
 *   <li>open loop: the first {@code count} arrivals, or every arrival scheduled before {@code duration}, are warmup;
 *       the measured window starts at the first measured arrival's intended time ({@code count}) or at
 *       {@code duration}.</li>
 * </ul>
 */
public sealed interface Warmup permits Warmup.None, Warmup.ForRequests, Warmup.ForDuration {

    Warmup NONE = new None();

    static Warmup none() {
        return NONE;
    }

    /** The first {@code count} requests are warmup; 0 means none. */
    static Warmup requests(int count) {
        return count == 0 ? NONE : new ForRequests(count);
    }

    /** Requests sent (closed loop) or scheduled (open loop) in the first {@code duration} are warmup; 0 means none. */
    static Warmup duration(Duration duration) {
        return Objects.requireNonNull(duration, "duration").isZero() ? NONE : new ForDuration(duration);
    }

    record None() implements Warmup {
        @Override
        public String toString() {
            return "none";
        }
    }

    /** @param count requests, &gt;= 1 */
    record ForRequests(int count) implements Warmup {
        public ForRequests {
            if (count < 1) throw new IllegalArgumentException("warmup requests (" + count + ") must be >= 1");
        }

        @Override
        public String toString() {
            return count + " requests";
        }
    }

    /** @param duration &gt; 0 */
    record ForDuration(Duration duration) implements Warmup {
        public ForDuration {
            Objects.requireNonNull(duration, "duration");
            if (duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException("warmup duration (" + duration + ") must be > 0");
            }
        }

        /** The duration in nanoseconds, capped so that deadline arithmetic cannot overflow. */
        public long nanos() {
            return Deadlines.cappedNanos(duration);
        }

        @Override
        public String toString() {
            return duration.toString();
        }
    }
}

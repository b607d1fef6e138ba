package io.llmperf4j.engine.harness;

import java.time.Duration;
import java.util.Objects;

/**
 * How many iterations of one type, each a fixed-duration window of continuous load.
 *
 * @param type  warmup or measurement
 * @param count iterations; &gt;= 0 for warmup, &gt;= 1 for measurement
 * @param time  each iteration's length, &gt; 0
 */
public record IterationSettings(IterationType type, int count, Duration time) {
    public IterationSettings {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(time, "time");
        String what = type == IterationType.WARMUP ? "warmup" : "measurement";
        int min = type == IterationType.WARMUP ? 0 : 1;
        if (count < min) throw new IllegalArgumentException(what + " iterations (" + count + ") must be >= " + min);
        if (time.isNegative() || time.isZero()) {
            throw new IllegalArgumentException(what + " time (" + time + ") must be > 0");
        }
    }

    public long timeNanos() {
        return time.toNanos();
    }

    /** JMH's rendering of a time value: "10 s", "500 ms". */
    public String timeText() {
        if (time.toNanos() % 1_000_000_000L == 0) return time.toSeconds() + " s";
        if (time.toNanos() % 1_000_000L == 0) return time.toMillis() + " ms";
        return time.toNanos() / 1_000L + " us";
    }
}

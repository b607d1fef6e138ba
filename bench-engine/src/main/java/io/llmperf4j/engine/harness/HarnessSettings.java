package io.llmperf4j.engine.harness;

import java.time.Duration;
import java.util.Objects;

/**
 * JMH-style iterations at one load point: per fork, {@code warmup.count} warmup windows then
 * {@code measurement.count} measurement windows, back to back under continuous load; {@code forks} forks, each with
 * a fresh client (connection pool). Warmup iterations are not counted towards the score: they let connection pools,
 * the server's caches and batch sizes reach steady state first.
 *
 * @param warmup      warmup iterations
 * @param measurement measurement iterations
 * @param forks       fresh-client repetitions, &gt;= 1
 */
public record HarnessSettings(IterationSettings warmup, IterationSettings measurement, int forks) {

    /** Fewer than JMH's 5: an LLM window costs real GPU time. */
    public static final int DEFAULT_WARMUP_ITERATIONS = 2;
    public static final Duration DEFAULT_WARMUP_TIME = Duration.ofSeconds(10);
    /** JMH's default; with 1 fork the ± error comes from 5 windows. */
    public static final int DEFAULT_MEASUREMENT_ITERATIONS = 5;
    /** Long enough for many requests to end inside one window at typical output lengths. */
    public static final Duration DEFAULT_MEASUREMENT_TIME = Duration.ofSeconds(10);
    /** A fork is a fresh connection pool, not a fresh JVM: one is usually enough. */
    public static final int DEFAULT_FORKS = 1;
    public static final HarnessSettings DEFAULT = of(DEFAULT_WARMUP_ITERATIONS, DEFAULT_WARMUP_TIME,
            DEFAULT_MEASUREMENT_ITERATIONS, DEFAULT_MEASUREMENT_TIME, DEFAULT_FORKS);

    public HarnessSettings {
        Objects.requireNonNull(warmup, "warmup");
        Objects.requireNonNull(measurement, "measurement");
        if (warmup.type() != IterationType.WARMUP) throw new IllegalArgumentException("warmup must be of type WARMUP");
        if (measurement.type() != IterationType.MEASUREMENT) {
            throw new IllegalArgumentException("measurement must be of type MEASUREMENT");
        }
        if (forks < 1) throw new IllegalArgumentException("forks (" + forks + ") must be >= 1");
    }

    public static HarnessSettings of(int warmupIterations, Duration warmupTime, int measurementIterations,
                                     Duration measurementTime, int forks) {
        return new HarnessSettings(new IterationSettings(IterationType.WARMUP, warmupIterations, warmupTime),
                new IterationSettings(IterationType.MEASUREMENT, measurementIterations, measurementTime), forks);
    }

    /** Continuous load per fork: every warmup and measurement window. */
    public Duration forkTime() {
        return warmup.time().multipliedBy(warmup.count()).plus(measurement.time().multipliedBy(measurement.count()));
    }
}

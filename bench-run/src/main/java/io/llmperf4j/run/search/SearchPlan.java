package io.llmperf4j.run.search;

import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.report.metrics.SloObjective;
import io.llmperf4j.report.search.RunVerdict;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * A capacity search: the highest concurrency or request rate at which every objective holds. Levels grow
 * geometrically (×2) from {@code start} until one fails (or {@code max} is reached), then the bracket between the
 * highest passing and the lowest failing level is bisected until it is within {@code tolerance} of the passing
 * level (at least 1 for concurrency, which stays an integer). Each level stops as soon as its verdict is resolved at
 * 95 % confidence (after {@code minSamples} requests) and never runs past {@code levelMax}.
 *
 * @param mode           concurrency (closed loop) or rate (open loop, on its seeded schedule)
 * @param objectives     what must hold at a level
 * @param start          the first level
 * @param max            the highest level probed
 * @param tolerance      the bisection's relative precision, in (0, 1); default {@value #DEFAULT_TOLERANCE}
 * @param levelMax       a level's limit in requests or time
 * @param minSamples     requests before a level may stop early; default {@value #DEFAULT_MIN_SAMPLES}
 * @param pause          sleep between levels (after the previous level's requests ended or were cancelled)
 * @param repeatBest     run the best passing level again at the end and warn when it no longer passes
 * @param arrival        the open loop's arrival process (rate mode)
 * @param arrivalSeed    the open loop's seed, or null for the workload's seed
 * @param maxConcurrency the open loop's cap on requests in flight, or empty
 * @param warmup         warmup per level, excluded from the verdict and the files
 */
public record SearchPlan(Mode mode, List<SloObjective> objectives, double start, double max, double tolerance,
                         LevelLimit levelMax, int minSamples, Duration pause, boolean repeatBest, Arrival arrival,
                         Long arrivalSeed, OptionalInt maxConcurrency, Warmup warmup) {

    public static final double DEFAULT_TOLERANCE = 0.05;
    /** The same as a plain run's verdict needs ({@link RunVerdict#MIN_SAMPLES}): one number for both. */
    public static final int DEFAULT_MIN_SAMPLES = RunVerdict.MIN_SAMPLES;
    public static final LevelLimit DEFAULT_LEVEL_MAX = LevelLimit.time(Duration.ofSeconds(60));
    public static final double DEFAULT_CONCURRENCY_MAX = 1024;
    public static final double DEFAULT_RATE_MAX = 1000;
    public static final Duration DEFAULT_PAUSE = Duration.ofSeconds(1);

    /** What the search varies. */
    public enum Mode {
        CONCURRENCY, RATE;

        /** "concurrency" or "rate". */
        public String key() {
            return this == CONCURRENCY ? "concurrency" : "rate";
        }

        /** "concurrency" or "req/s". */
        public String unit() {
            return this == CONCURRENCY ? "concurrency" : "req/s";
        }
    }

    public SearchPlan {
        Objects.requireNonNull(mode, "mode");
        objectives = List.copyOf(objectives);
        if (objectives.isEmpty()) {
            throw new IllegalArgumentException("a search needs an objective (--slo ttft_p99<=500ms, ...)");
        }
        if (!(start > 0) || Double.isInfinite(start)) {
            throw new IllegalArgumentException("the first level (" + start + ") must be > 0");
        }
        if (!(max >= start) || Double.isInfinite(max)) {
            throw new IllegalArgumentException("the highest level (" + max + ") must be >= the first (" + start + ")");
        }
        if (mode == Mode.CONCURRENCY && (start != Math.rint(start) || max != Math.rint(max))) {
            throw new IllegalArgumentException("concurrency levels are integers (got " + start + " to " + max + ")");
        }
        if (!(tolerance > 0 && tolerance < 1)) {
            throw new IllegalArgumentException("the tolerance (" + tolerance + ") must be in (0, 1)");
        }
        Objects.requireNonNull(levelMax, "levelMax");
        if (minSamples < 1) throw new IllegalArgumentException("minSamples (" + minSamples + ") must be >= 1");
        Objects.requireNonNull(pause, "pause");
        if (pause.isNegative()) throw new IllegalArgumentException("pause (" + pause + ") must be >= 0");
        arrival = arrival == null ? Arrival.poisson() : arrival;
        maxConcurrency = maxConcurrency == null ? OptionalInt.empty() : maxConcurrency;
        warmup = warmup == null ? Warmup.NONE : warmup;
    }

    /** A search with the defaults: from 1, up to 1024 (concurrency) or 1000 req/s, Poisson arrivals, no warmup. */
    public static SearchPlan of(Mode mode, List<SloObjective> objectives) {
        return new SearchPlan(mode, objectives, 1, mode == Mode.CONCURRENCY ? DEFAULT_CONCURRENCY_MAX
                : DEFAULT_RATE_MAX, DEFAULT_TOLERANCE, DEFAULT_LEVEL_MAX, DEFAULT_MIN_SAMPLES, DEFAULT_PAUSE, true,
                Arrival.poisson(), null, OptionalInt.empty(), Warmup.NONE);
    }

    public SearchPlan withRange(double newStart, double newMax) {
        return new SearchPlan(mode, objectives, newStart, newMax, tolerance, levelMax, minSamples, pause, repeatBest,
                arrival, arrivalSeed, maxConcurrency, warmup);
    }

    public SearchPlan withTolerance(double t) {
        return new SearchPlan(mode, objectives, start, max, t, levelMax, minSamples, pause, repeatBest, arrival,
                arrivalSeed, maxConcurrency, warmup);
    }

    public SearchPlan withLevelMax(LevelLimit limit) {
        return new SearchPlan(mode, objectives, start, max, tolerance, limit, minSamples, pause, repeatBest, arrival,
                arrivalSeed, maxConcurrency, warmup);
    }

    public SearchPlan withMinSamples(int n) {
        return new SearchPlan(mode, objectives, start, max, tolerance, levelMax, n, pause, repeatBest, arrival,
                arrivalSeed, maxConcurrency, warmup);
    }

    public SearchPlan withPause(Duration p) {
        return new SearchPlan(mode, objectives, start, max, tolerance, levelMax, minSamples, p, repeatBest, arrival,
                arrivalSeed, maxConcurrency, warmup);
    }

    public SearchPlan withRepeatBest(boolean repeat) {
        return new SearchPlan(mode, objectives, start, max, tolerance, levelMax, minSamples, pause, repeat, arrival,
                arrivalSeed, maxConcurrency, warmup);
    }

    public SearchPlan withArrival(Arrival a, Long seed) {
        return new SearchPlan(mode, objectives, start, max, tolerance, levelMax, minSamples, pause, repeatBest, a,
                seed, maxConcurrency, warmup);
    }

    public SearchPlan withMaxConcurrency(OptionalInt cap) {
        return new SearchPlan(mode, objectives, start, max, tolerance, levelMax, minSamples, pause, repeatBest,
                arrival, arrivalSeed, cap, warmup);
    }

    public SearchPlan withWarmup(Warmup w) {
        return new SearchPlan(mode, objectives, start, max, tolerance, levelMax, minSamples, pause, repeatBest,
                arrival, arrivalSeed, maxConcurrency, w);
    }
}

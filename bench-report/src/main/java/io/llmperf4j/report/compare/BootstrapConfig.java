package io.llmperf4j.report.compare;

/**
 * The percentile bootstrap behind {@link RunComparison}'s confidence intervals: each run's successful requests are
 * resampled with replacement, independently, {@code resamples} times; the interval is the
 * {@code (1 − level)/2} and {@code (1 + level)/2} quantiles of the resampled deltas. Seeded, so the same inputs
 * always give the same intervals.
 *
 * @param resamples       bootstrap resamples per metric (at least 100)
 * @param confidenceLevel e.g. 0.95
 * @param seed            the random seed
 */
public record BootstrapConfig(int resamples, double confidenceLevel, long seed) {

    /** Default resamples. */
    public static final int DEFAULT_RESAMPLES = 2_000;
    /** Default confidence level. */
    public static final double DEFAULT_CONFIDENCE_LEVEL = 0.95;
    /** Default seed. */
    public static final long DEFAULT_SEED = 11_111L;
    /** 2,000 resamples, 95 %, seed 11111. */
    public static final BootstrapConfig DEFAULT =
            new BootstrapConfig(DEFAULT_RESAMPLES, DEFAULT_CONFIDENCE_LEVEL, DEFAULT_SEED);

    public BootstrapConfig {
        if (resamples < 100) throw new IllegalArgumentException("resamples (" + resamples + ") must be >= 100");
        if (!(confidenceLevel > 0 && confidenceLevel < 1)) {
            throw new IllegalArgumentException("confidenceLevel (" + confidenceLevel + ") must be in (0, 1)");
        }
    }
}

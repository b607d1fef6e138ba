package io.llmperf4j.report.compare;

/**
 * A two-sided confidence interval.
 *
 * @param level the confidence level, e.g. 0.95
 * @param lower the lower end
 * @param upper the upper end
 */
public record ConfidenceInterval(double level, double lower, double upper) {
    public ConfidenceInterval {
        if (!(level > 0 && level < 1)) throw new IllegalArgumentException("level (" + level + ") must be in (0, 1)");
        if (lower > upper) {
            throw new IllegalArgumentException("lower (" + lower + ") must be <= upper (" + upper + ")");
        }
    }

    /** True when {@code value} lies inside, ends included. */
    public boolean contains(double value) {
        return value >= lower && value <= upper;
    }
}

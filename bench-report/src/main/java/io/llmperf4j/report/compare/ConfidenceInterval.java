package io.llmperf4j.report.compare;

import java.math.BigDecimal;
import java.util.Locale;

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

    /** A confidence level in percent as printed: 0.95 is "95", 0.999 is "99.9". */
    public static String percent(double level) {
        return new BigDecimal(String.format(Locale.ROOT, "%.4f", 100 * level)).stripTrailingZeros().toPlainString();
    }

    /**
     * True when the interval has a width. A zero-width interval comes from samples without any variation (every
     * value the same on each side): it measured no noise, so it cannot say a change stands out from noise.
     */
    public boolean hasWidth() {
        return upper > lower;
    }

    /** True when {@code value} lies inside, ends included. */
    public boolean contains(double value) {
        return value >= lower && value <= upper;
    }
}

package io.llmperf4j.report.compare;

import org.apache.commons.math3.distribution.TDistribution;

/**
 * The confidence interval of the difference of two means from a few values a side, such as the measured iterations
 * of two harness runs: Welch's t interval (unequal variances, Welch–Satterthwaite degrees of freedom). Iteration
 * scores are few and roughly normal, which is what a t interval assumes; a bootstrap of two or three values cannot
 * spread (two equal iterations resample to the same mean every time, a zero-width interval).
 *
 * <p>{@code d = mean(b) − mean(a)}, {@code se² = s_a²/n_a + s_b²/n_b} (sample variances, n − 1),
 * {@code df = se⁴ / ((s_a²/n_a)²/(n_a − 1) + (s_b²/n_b)²/(n_b − 1))}, interval {@code d ± t(1 − (1 − c)/2, df)·se}.
 * The relative interval is that interval over the baseline mean, in percent (the baseline mean's own spread is in the
 * width through {@code se}, not in the divisor), so both exclude 0 together. When every value of both sides is the
 * same on its side, {@code se} is 0 and the interval is the point {@code d}.
 *
 * <p>Worked example: a = {100, 102, 104}, b = {110, 111, 112}: d = 9, s_a² = 4, s_b² = 1, se² = 4/3 + 1/3 = 5/3,
 * df = (5/3)² / ((4/3)²/2 + (1/3)²/2) = 2.941; at 95 % t = 3.2188, interval 9 ± 4.155 = [4.845, 13.155], relative
 * [+4.7 %, +12.9 %] (scipy's {@code ttest_ind(b, a, equal_var=False).confidence_interval()} agrees); at 99.9 %
 * t = 13.369, interval [−8.260, 26.260]: three iterations a side need a large change to show.
 */
final class WelchInterval {

    /**
     * The harness's confidence level, JMH's "±(99.9%)": the console's and {@code <base>_jmh.json}'s score errors use
     * it, so compare's interval over iterations uses it too.
     */
    static final double HARNESS_CONFIDENCE = 0.999;

    /** Fewer values than this on a side give no interval: two values say almost nothing about the spread. */
    static final int MIN_PER_SIDE = 3;

    private WelchInterval() {
    }

    /**
     * The {@code level} intervals of mean(b) − mean(a).
     *
     * @return {@code [0]} absolute, {@code [1]} relative in percent; both null when a side has fewer than
     *         {@link #MIN_PER_SIDE} values, the relative one null when the baseline mean is 0
     */
    static ConfidenceInterval[] of(double[] a, double[] b, double level) {
        ConfidenceInterval[] result = new ConfidenceInterval[2];
        if (a.length < MIN_PER_SIDE || b.length < MIN_PER_SIDE) return result;
        double ma = mean(a);
        double mb = mean(b);
        double va = variance(a, ma) / a.length;
        double vb = variance(b, mb) / b.length;
        double se = Math.sqrt(va + vb);
        double d = mb - ma;
        double half = 0;
        if (se > 0) {
            double df = (va + vb) * (va + vb) / (va * va / (a.length - 1) + vb * vb / (b.length - 1));
            half = new TDistribution(null, df).inverseCumulativeProbability(1 - (1 - level) / 2) * se;
        }
        result[0] = new ConfidenceInterval(level, d - half, d + half);
        if (ma != 0) {
            double lo = (d - half) / ma * 100.0;
            double hi = (d + half) / ma * 100.0;
            result[1] = new ConfidenceInterval(level, Math.min(lo, hi), Math.max(lo, hi));
        }
        return result;
    }

    private static double mean(double[] values) {
        double sum = 0;
        for (double v : values) sum += v;
        return sum / values.length;
    }

    private static double variance(double[] values, double mean) {
        double ss = 0;
        for (double v : values) ss += (v - mean) * (v - mean);
        return ss / (values.length - 1);
    }
}

package io.llmperf4j.model;

import java.util.Arrays;

/**
 * The one percentile definition of llmperf4j's own figures (summary, console table, HTML, sweep rows, compare):
 * numpy's default, {@code numpy.percentile(values, p)} with method {@code "linear"}, over the exact values. The
 * position {@code (n − 1) · p / 100} falls between two neighbouring order statistics {@code a ≤ b} with fraction
 * {@code g}; the result is numpy's lerp, {@code a + (b − a) · g} below one half and {@code b − (b − a) · (1 − g)}
 * from one half up, so it reproduces numpy (and pandas' {@code Series.quantile}) to the last bit. It lives in
 * bench-model so the engine's sweep rows and the report's summaries compute it with the same code.
 */
public final class Percentiles {

    private Percentiles() {
    }

    /**
     * The {@code percent}-th percentile (0..100) of values already sorted ascending; NaN when there are none.
     *
     * @param sortedAscending the values, sorted, NaN-free; +∞ is allowed (an SLO verdict counts a failure so): a
     *                        percentile that falls between a value and +∞ is +∞, one on a value is that value
     */
    public static double ofSorted(double[] sortedAscending, double percent) {
        int n = sortedAscending.length;
        if (n == 0) return Double.NaN;
        double virtualIndex = (n - 1) * (percent / 100.0);
        int below;
        int above;
        double gamma;
        if (virtualIndex >= n - 1) {
            below = n - 1;
            above = n - 1;
            gamma = 0;
        } else {
            below = (int) Math.floor(virtualIndex);
            above = below + 1;
            gamma = virtualIndex - below;
        }
        double a = sortedAscending[below];
        double b = sortedAscending[above];
        // the same result for finite values; with +∞ (a failure, in an SLO verdict) it avoids ∞ − ∞ and ∞ · 0
        if (gamma == 0 || a == b) return a;
        if (b == Double.POSITIVE_INFINITY) return b; // past the last finite value: ∞ − ∞ · (1 − g) would be NaN
        double difference = b - a;
        return gamma >= 0.5 ? b - difference * (1 - gamma) : a + difference * gamma;
    }

    /** The {@code percent}-th percentile of unsorted values (a sorted copy is made); NaN when there are none. */
    public static double of(double[] values, double percent) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return ofSorted(sorted, percent);
    }

    /** The {@code percent}-th percentile of unsorted integer values (nanoseconds, say); NaN when there are none. */
    public static double of(long[] values, double percent) {
        double[] sorted = new double[values.length];
        for (int i = 0; i < values.length; i++) sorted[i] = values[i];
        Arrays.sort(sorted);
        return ofSorted(sorted, percent);
    }
}

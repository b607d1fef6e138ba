package io.llmperf4j.report.compare;

import java.util.Locale;

/** A statistic compared between two runs. */
public enum CompareStat {
    P50("p50", 0.50),
    P90("p90", 0.90),
    P99("p99", 0.99),
    MEAN("mean", Double.NaN),
    /** The single value of a run-level metric. */
    VALUE("value", Double.NaN);

    private final String key;
    private final double quantile;

    CompareStat(String key, double quantile) {
        this.key = key;
        this.quantile = quantile;
    }

    /** The suffix in fail-if rules, e.g. {@code "p90"}. */
    public String key() {
        return key;
    }

    /** The quantile in [0, 1] for percentiles, NaN otherwise. */
    public double quantile() {
        return quantile;
    }

    /** The per-request statistics, in display order. */
    static final CompareStat[] PER_REQUEST = {P50, P90, P99, MEAN};

    static CompareStat perRequestByKey(String key) {
        String lower = key.toLowerCase(Locale.ROOT);
        for (CompareStat s : PER_REQUEST) {
            if (s.key.equals(lower)) return s;
        }
        return null;
    }
}

package io.llmperf4j.report.metrics;

/**
 * The unit a {@link Metric} is recorded in, and the unit it is reported in. Conversion happens once, in the
 * report: {@link #toReportUnit(double)}.
 */
public enum MetricUnit {
    /** Recorded in nanoseconds, reported in milliseconds. */
    NANOSECONDS("ns", "ms", "ms", 1e6),
    /** Tokens per second, both ways. */
    TOKENS_PER_SECOND("tok/s", "tok/s", "tokens_per_s", 1.0),
    /** A token count, both ways. */
    TOKENS("tokens", "tokens", "tokens", 1.0);

    private final String baseName;
    private final String reportName;
    private final String keySuffix;
    /** Divisor, not a factor: 240123903 / 1e6 prints 240.123903, 240123903 * 1e-6 does not. */
    private final double basePerReportUnit;

    MetricUnit(String baseName, String reportName, String keySuffix, double basePerReportUnit) {
        this.baseName = baseName;
        this.reportName = reportName;
        this.keySuffix = keySuffix;
        this.basePerReportUnit = basePerReportUnit;
    }

    /** The recorded unit's symbol, e.g. {@code "ns"}. */
    public String baseName() {
        return baseName;
    }

    /** The reported unit's symbol, e.g. {@code "ms"}. */
    public String reportName() {
        return reportName;
    }

    /** The suffix of JSON keys, e.g. {@code "ms"} in {@code ttft_ms}. */
    public String keySuffix() {
        return keySuffix;
    }

    /** Converts a recorded value to the report unit; NaN stays NaN. */
    public double toReportUnit(double baseValue) {
        return baseValue / basePerReportUnit;
    }
}

package io.llmperf4j.report.metrics;

/** The percentiles llmperf4j reports for every metric. */
public enum Percentile {
    P50(50.0, "p50"),
    P90(90.0, "p90"),
    P95(95.0, "p95"),
    P99(99.0, "p99"),
    P99_9(99.9, "p99_9");

    private final double percent;
    private final String key;

    Percentile(double percent, String key) {
        this.percent = percent;
        this.key = key;
    }

    /** The percentile in [0, 100], e.g. {@code 99.9}. */
    public double percent() {
        return percent;
    }

    /** The JSON key, e.g. {@code "p99_9"}. */
    public String key() {
        return key;
    }
}

package io.llmperf4j.servermetrics.exposition;

/**
 * A family's {@code # TYPE}. 0.0.4 has counter, gauge, histogram, summary and untyped; OpenMetrics adds
 * gaugehistogram, stateset and info and calls untyped "unknown" (both are {@link #UNTYPED} here).
 */
public enum MetricType {
    COUNTER("counter"),
    GAUGE("gauge"),
    HISTOGRAM("histogram"),
    GAUGE_HISTOGRAM("gaugehistogram"),
    SUMMARY("summary"),
    INFO("info"),
    STATESET("stateset"),
    UNTYPED("untyped");

    /** The word on a {@code # TYPE} line (0.0.4 spelling for {@link #UNTYPED}). */
    public final String word;

    MetricType(String word) {
        this.word = word;
    }

    /** The type a {@code # TYPE} line names in {@code format}, or null when that format has no such type. */
    static MetricType fromWord(String word, ExpositionFormat format) {
        boolean openMetrics = format == ExpositionFormat.OPENMETRICS_1_0;
        return switch (word) {
            case "counter" -> COUNTER;
            case "gauge" -> GAUGE;
            case "histogram" -> HISTOGRAM;
            case "summary" -> SUMMARY;
            case "untyped" -> openMetrics ? null : UNTYPED;
            case "unknown" -> openMetrics ? UNTYPED : null;
            case "gaugehistogram" -> openMetrics ? GAUGE_HISTOGRAM : null;
            case "stateset" -> openMetrics ? STATESET : null;
            case "info" -> openMetrics ? INFO : null;
            default -> null;
        };
    }
}

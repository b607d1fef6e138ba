package io.llmperf4j.report.metrics;

/**
 * The per-request distributions llmperf4j records, one histogram each. Values are recorded in the metric's
 * {@link MetricUnit#baseName() base unit} (nanoseconds for latencies) and converted once, in the report.
 * See {@code bench-report/METRICS.md} for the exact definitions.
 */
public enum Metric {
    /** Send to the first event with non-empty content. */
    TTFT("ttft", "TTFT", MetricUnit.NANOSECONDS),
    /** (E2E − TTFT) / (output tokens − 1), one value per request. */
    TPOT("tpot", "TPOT (per request)", MetricUnit.NANOSECONDS),
    /** Gap between consecutive content events, one value per gap, pooled over requests. */
    ITL("itl", "ITL (per event)", MetricUnit.NANOSECONDS),
    /** Send to the end of the response. */
    E2E_LATENCY("e2e_latency", "E2E latency", MetricUnit.NANOSECONDS),
    /** Output tokens / E2E seconds, one value per request. */
    REQUEST_OUTPUT_THROUGHPUT("request_output", "Output tok/s (per request)", MetricUnit.TOKENS_PER_SECOND),
    /** Output tokens of a request, by the chosen token source. */
    OUTPUT_TOKENS("output", "Output tokens", MetricUnit.TOKENS),
    /** Input tokens of a request: server usage, else the workload's reported count. */
    INPUT_TOKENS("input", "Input tokens", MetricUnit.TOKENS);

    private final String keyStem;
    private final String label;
    private final MetricUnit unit;

    Metric(String keyStem, String label, MetricUnit unit) {
        this.keyStem = keyStem;
        this.label = label;
        this.unit = unit;
    }

    /** The unit values are recorded in. */
    public MetricUnit unit() {
        return unit;
    }

    /** A short human label for tables, e.g. {@code "TPOT (per request)"}. */
    public String label() {
        return label;
    }

    /**
     * The key in llmperf4j's summary JSON, with the report unit in it: {@code ttft_ms}, {@code tpot_ms},
     * {@code itl_ms}, {@code e2e_latency_ms}, {@code request_output_tokens_per_s}, {@code output_tokens},
     * {@code input_tokens}.
     */
    public String jsonKey() {
        return keyStem + "_" + unit.keySuffix();
    }
}

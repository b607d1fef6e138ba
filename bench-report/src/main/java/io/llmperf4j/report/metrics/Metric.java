package io.llmperf4j.report.metrics;

/**
 * The per-request distributions llmperf4j records, one histogram each. Values are recorded in the metric's
 * {@link MetricUnit#baseName() base unit} (nanoseconds for latencies) and converted once, in the report.
 * See {@code bench-report/METRICS.md} for the exact definitions.
 */
public enum Metric {
    /** Send to the first event with non-empty content. */
    TTFT("ttft", "TTFT", MetricUnit.NANOSECONDS),
    /** Send to the first event with non-empty reasoning text; only when the server streams reasoning apart. */
    TTFRT("ttfrt", "TTFRT (first reasoning)", MetricUnit.NANOSECONDS, true),
    /** (E2E − TTFT) / (output tokens − 1), one value per request. */
    TPOT("tpot", "TPOT (per request)", MetricUnit.NANOSECONDS),
    /** Gap between consecutive content events, one value per gap, pooled over requests. */
    ITL("itl", "ITL (per event)", MetricUnit.NANOSECONDS),
    /** Each event's gap split over the tokens it completed: k samples of gap / k, pooled over requests. */
    ITL_PER_TOKEN("itl_per_token", "ITL (per token)", MetricUnit.NANOSECONDS),
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
    private final boolean shownOnlyWithValues;

    Metric(String keyStem, String label, MetricUnit unit) {
        this(keyStem, label, unit, false);
    }

    Metric(String keyStem, String label, MetricUnit unit, boolean shownOnlyWithValues) {
        this.keyStem = keyStem;
        this.label = label;
        this.unit = unit;
        this.shownOnlyWithValues = shownOnlyWithValues;
    }

    /**
     * Whether tables leave the metric out when it has no values (TTFRT of a model that does not reason); the
     * summary JSON always has every key.
     */
    public boolean shownOnlyWithValues() {
        return shownOnlyWithValues;
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
     * The key in llmperf4j's summary JSON, with the report unit in it: {@code ttft_ms}, {@code ttfrt_ms},
     * {@code tpot_ms}, {@code itl_ms}, {@code itl_per_token_ms}, {@code e2e_latency_ms},
     * {@code request_output_tokens_per_s}, {@code output_tokens}, {@code input_tokens}.
     */
    public String jsonKey() {
        return keyStem + "_" + unit.keySuffix();
    }
}

package io.llmperf4j.report.compare;

import java.util.Locale;

/**
 * What {@link RunComparison} compares. Per-request metrics are distributions over the successful requests,
 * compared by {@link CompareStat#P50}, {@code P90}, {@code P99} and {@code MEAN}; run-level metrics are one value
 * per run ({@link CompareStat#VALUE}). Values are in the display unit {@link #unit()}. ITL metrics are
 * distributions of many samples per request (one per gap, or per token), pooled over the successful requests
 * ({@link #pooled()}); they need per-event times, which {@code requests.jsonl} holds and the per-request CSV does not.
 */
public enum CompareMetric {
    /** Time to first token, ms. */
    TTFT("ttft", "TTFT", "ms", true, false, true),
    /** Time per output token (per request), ms. */
    TPOT("tpot", "TPOT", "ms", true, false, true),
    /** Inter-token latency per event: the gaps between content events, pooled over requests, ms. */
    ITL("itl", "ITL (per event)", "ms", true, true, true),
    /** Inter-token latency per token: each event's gap split over the client tokens it completed, pooled, ms. */
    ITL_PER_TOKEN("itl_per_token", "ITL (per token)", "ms", true, true, true),
    /** End-to-end latency, ms. */
    E2E("e2e", "E2E latency", "ms", true, false, true),
    /**
     * Send lag: how late each request went out after its intended send (an open loop's schedule, a session's think
     * time), ms. Only for runs whose records carry it ({@link #needsSendLag()}).
     */
    SEND_LAG("send_lag", "Send lag", "ms", true, false, true),
    /** TTFT counted from the intended send (send lag + TTFT), ms: the open loop's, sweep table's and goodput's TTFT. */
    TTFT_FROM_INTENDED("ttft_from_intended", "TTFT (from intended send)", "ms", true, false, true),
    /** E2E latency counted from the intended send (send lag + E2E), ms. */
    E2E_FROM_INTENDED("e2e_from_intended", "E2E (from intended send)", "ms", true, false, true),
    /** Output tokens per second of each request. */
    REQUEST_TPS("request_tps", "Output tok/s (per request)", "tok/s", true, false, false),
    /** Σ output tokens of successful requests / the request window (first send to last end). */
    OUTPUT_THROUGHPUT("output_throughput", "Output throughput", "tok/s", false, false, false),
    /** Successful requests / the request window. */
    REQUEST_THROUGHPUT("request_throughput", "Request throughput", "req/s", false, false, false),
    /** Failed / recorded requests, a fraction in [0, 1]. */
    ERROR_RATE("error_rate", "Error rate", "fraction", false, false, true);

    private final String key;
    private final String label;
    private final String unit;
    private final boolean perRequest;
    private final boolean pooled;
    private final boolean lowerIsBetter;

    CompareMetric(String key, String label, String unit, boolean perRequest, boolean pooled, boolean lowerIsBetter) {
        this.key = key;
        this.label = label;
        this.unit = unit;
        this.perRequest = perRequest;
        this.pooled = pooled;
        this.lowerIsBetter = lowerIsBetter;
    }

    /** The name in fail-if rules, e.g. {@code "ttft"}. */
    public String key() {
        return key;
    }

    /** A human label. */
    public String label() {
        return label;
    }

    /** The display unit values and absolute deltas are in: {@code ms}, {@code tok/s}, {@code req/s}, {@code fraction}. */
    public String unit() {
        return unit;
    }

    /** True for distributions over requests, false for one value per run. */
    public boolean perRequest() {
        return perRequest;
    }

    /**
     * True for distributions with many samples per request (ITL), pooled over requests; their bootstrap resamples
     * whole requests, since the gaps of one request are not independent of each other.
     */
    public boolean pooled() {
        return pooled;
    }

    /**
     * True for the metrics of a scheduled run (an open loop, or sessions): they need each request's send lag, which
     * a plain closed loop does not have (it sends the moment a slot frees, with no intended send of its own).
     */
    public boolean needsSendLag() {
        return this == SEND_LAG || this == TTFT_FROM_INTENDED || this == E2E_FROM_INTENDED;
    }

    /** True when a decrease is an improvement (latencies, error rate). */
    public boolean lowerIsBetter() {
        return lowerIsBetter;
    }

    /** True for latency metrics, whose fail-if thresholds may carry a time unit. */
    public boolean isLatency() {
        return "ms".equals(unit);
    }

    /** The metric whose {@link #key()} is {@code key} (case-insensitive), or null. */
    static CompareMetric byKey(String key) {
        String lower = key.toLowerCase(Locale.ROOT);
        for (CompareMetric m : values()) {
            if (m.key.equals(lower)) return m;
        }
        return null;
    }
}

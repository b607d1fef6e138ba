package io.llmperf4j.report.llmperf;

/** The six per-request metrics llmperf summarises, in its summary order, with their JSON keys. */
public enum LlmperfMetric {
    INTER_TOKEN_LATENCY_S("inter_token_latency_s"),
    TTFT_S("ttft_s"),
    END_TO_END_LATENCY_S("end_to_end_latency_s"),
    REQUEST_OUTPUT_THROUGHPUT_TOKEN_PER_S("request_output_throughput_token_per_s"),
    NUMBER_INPUT_TOKENS("number_input_tokens"),
    NUMBER_OUTPUT_TOKENS("number_output_tokens");

    private final String key;

    LlmperfMetric(String key) {
        this.key = key;
    }

    /** The key in the individual-responses file and, prefixed with {@code results_}, in the summary. */
    public String key() {
        return key;
    }
}

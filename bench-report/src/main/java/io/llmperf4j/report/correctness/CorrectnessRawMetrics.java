package io.llmperf4j.report.correctness;

import io.llmperf4j.model.RequestRecord;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code "metrics"} of one entry of llmperf's correctness individual-responses file: its openai actor's dict
 * with the actor's own values, which the correctness script never fixes up (unlike the token benchmark's driver).
 * Keys in the actor's order:
 * <ul>
 *   <li>{@code error_code}: null, or the failure's code; {@code error_msg}: "" or the failure's message;</li>
 *   <li>{@code inter_token_latency_s}: the SUM of the gaps between content events, TTFT included, so last content
 *       minus send (the integer {@code 0} when no content arrived);</li>
 *   <li>{@code ttft_s}: seconds to the first non-empty content, the integer {@code 0} when none arrived;</li>
 *   <li>{@code end_to_end_latency_s}; {@code request_output_throughput_token_per_s} = SSE data events / e2e
 *       (both the integer {@code 0} for a failed request, which the actor never sets them for);</li>
 *   <li>{@code number_total_tokens} = events + prompt length, {@code number_output_tokens} = SSE data events
 *       ({@code [DONE]} excluded; role-only and finish chunks included), {@code number_input_tokens} = the prompt
 *       length llmperf passes, 0.</li>
 * </ul>
 */
public final class CorrectnessRawMetrics {
    private static final double NANOS_PER_SECOND = 1e9;
    private static final Long PYTHON_INT_ZERO = 0L;

    private CorrectnessRawMetrics() {
    }

    /** The actor's metrics dict for {@code record}, for {@code PythonJsonWriter}. */
    public static Map<String, Object> of(RequestRecord record) {
        boolean failed = record.failure() != null;
        boolean contentArrived = record.ttftNanos() >= 0;
        Map<String, Object> metrics = new LinkedHashMap<>();
        metrics.put("error_code", failed ? (Object) (long) record.failure().code() : null);
        metrics.put("error_msg", failed ? record.failure().message() : "");
        metrics.put("inter_token_latency_s", contentArrived && record.lastContentNanos() >= 0
                ? (Object) (record.lastContentNanos() / NANOS_PER_SECOND) : PYTHON_INT_ZERO);
        metrics.put("ttft_s", contentArrived ? (Object) (record.ttftNanos() / NANOS_PER_SECOND) : PYTHON_INT_ZERO);
        if (failed) {
            metrics.put("end_to_end_latency_s", PYTHON_INT_ZERO);
            metrics.put("request_output_throughput_token_per_s", PYTHON_INT_ZERO);
        } else {
            double e2eS = record.e2eNanos() / NANOS_PER_SECOND;
            metrics.put("end_to_end_latency_s", e2eS);
            metrics.put("request_output_throughput_token_per_s", e2eS > 0 ? record.dataEventCount() / e2eS : 0.0);
        }
        long events = record.dataEventCount();
        metrics.put("number_total_tokens", events + record.numberInputTokens());
        metrics.put("number_output_tokens", events);
        metrics.put("number_input_tokens", (long) record.numberInputTokens());
        return metrics;
    }
}

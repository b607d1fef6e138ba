package io.llmperf4j.report.llmperf;

import io.llmperf4j.model.RequestRecord;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One entry of llmperf's individual-responses file: the actor's metrics dict after the driver's fix-ups
 * (llmperf HEAD f1d6bed, PR #59). Some values keep the Python type llmperf leaves them in, because that type
 * shows in the JSON ({@code 0} versus {@code 0.0}) and decides whether pandas treats a column as integers; those
 * are {@link Number}s holding a {@link Long} or a {@link Double}.
 *
 * <p>For a successful request (as llmperf computes it):
 * <ul>
 *   <li>{@code inter_token_latency_s} = (last content event − send) / SSE data events, so TTFT is included and
 *       every data event counts (role-only and finish chunks too); {@code 0.0} without content or events.</li>
 *   <li>{@code ttft_s}: seconds to the first non-empty content; the integer {@code 0} when none arrived.</li>
 *   <li>{@code request_output_throughput_token_per_s} = client-tokenizer output tokens / end-to-end seconds.</li>
 *   <li>{@code number_output_tokens}: the client tokenizer's count of the generated text (BOS included);
 *       {@code number_total_tokens} = input + output.</li>
 * </ul>
 *
 * <p>A FAILED request crashes llmperf's driver (ZeroDivisionError on e2e = 0) and is never recorded; we record
 * it with the same keys and the values llmperf's actor leaves after an exception, keeping what is still true:
 * {@code error_code} = {@link io.llmperf4j.model.Failure#code()}, {@code error_msg} = its message,
 * {@code end_to_end_latency_s} and {@code request_output_throughput_token_per_s} = the integer {@code 0}
 * (the actor never sets them; a throughput over a failed request would mislead), {@code ttft_s} and
 * {@code inter_token_latency_s} as for a success when content had arrived, token counts over the partial text.
 * Failures never enter the success statistics: {@link LlmperfSummary} filters on {@link #succeeded()}, as
 * llmperf filters on a null error_code.
 *
 * @param errorCode                        null when the request succeeded
 * @param errorMsg                         "" when the request succeeded
 * @param interTokenLatencyS               see above
 * @param ttftS                            {@code Long} 0 when no content arrived, else a {@code Double}
 * @param endToEndLatencyS                 {@code Double}; {@code Long} 0 for a failure
 * @param requestOutputThroughputTokenPerS {@code Double}; {@code Long} 0 for a failure
 * @param numberTotalTokens                input + output tokens
 * @param numberOutputTokens               client-tokenizer output tokens
 * @param numberInputTokens                the prompt's reported input tokens
 */
public record LlmperfRequestMetrics(
        Integer errorCode,
        String errorMsg,
        double interTokenLatencyS,
        Number ttftS,
        Number endToEndLatencyS,
        Number requestOutputThroughputTokenPerS,
        long numberTotalTokens,
        long numberOutputTokens,
        long numberInputTokens) {

    private static final double NANOS_PER_SECOND = 1e9;
    private static final Long PYTHON_INT_ZERO = 0L;

    public LlmperfRequestMetrics {
        Objects.requireNonNull(errorMsg, "errorMsg");
        ttftS = pythonNumber(ttftS, "ttftS");
        endToEndLatencyS = pythonNumber(endToEndLatencyS, "endToEndLatencyS");
        requestOutputThroughputTokenPerS = pythonNumber(requestOutputThroughputTokenPerS,
                "requestOutputThroughputTokenPerS");
    }

    /**
     * The metrics llmperf would report for {@code record}.
     *
     * @throws IllegalArgumentException if a successful record's output tokens were never counted (-1)
     */
    public static LlmperfRequestMetrics from(RequestRecord record) {
        boolean contentArrived = record.ttftNanos() >= 0;
        // llmperf divides the summed gaps (= last content - send) by the SSE data-event count.
        double interTokenLatencyS = contentArrived && record.lastContentNanos() >= 0 && record.dataEventCount() > 0
                ? (record.lastContentNanos() / NANOS_PER_SECOND) / record.dataEventCount()
                : 0.0;
        Number ttftS = contentArrived ? (Number) (record.ttftNanos() / NANOS_PER_SECOND) : PYTHON_INT_ZERO;
        long inputTokens = record.numberInputTokens();

        if (record.succeeded()) {
            if (record.outputTokens() < 0) {
                throw new IllegalArgumentException("request " + record.clientRequestId()
                        + " succeeded but its output tokens were never counted; count them before reporting");
            }
            long outputTokens = record.outputTokens();
            double e2eS = record.e2eNanos() / NANOS_PER_SECOND;
            return new LlmperfRequestMetrics(null, "", interTokenLatencyS, ttftS, e2eS, outputTokens / e2eS,
                    inputTokens + outputTokens, outputTokens, inputTokens);
        }
        // An uncounted partial text of a failure has no tokens worth reporting.
        long outputTokens = Math.max(0, record.outputTokens());
        return new LlmperfRequestMetrics(record.failure().code(), record.failure().message(), interTokenLatencyS,
                ttftS, PYTHON_INT_ZERO, PYTHON_INT_ZERO, inputTokens + outputTokens, outputTokens, inputTokens);
    }

    /** True when llmperf would count the request as completed (a null error_code). */
    public boolean succeeded() {
        return errorCode == null;
    }

    /** The value of one summarised metric, as a {@code Long} (a Python int) or a {@code Double}. */
    public Number value(LlmperfMetric metric) {
        return switch (metric) {
            case INTER_TOKEN_LATENCY_S -> interTokenLatencyS;
            case TTFT_S -> ttftS;
            case END_TO_END_LATENCY_S -> endToEndLatencyS;
            case REQUEST_OUTPUT_THROUGHPUT_TOKEN_PER_S -> requestOutputThroughputTokenPerS;
            case NUMBER_INPUT_TOKENS -> numberInputTokens;
            case NUMBER_OUTPUT_TOKENS -> numberOutputTokens;
        };
    }

    /** The entry as llmperf writes it, keys in its order, for {@code PythonJsonWriter}. */
    public Map<String, Object> toJsonObject() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("error_code", errorCode == null ? null : (long) errorCode);
        json.put("error_msg", errorMsg);
        json.put(LlmperfMetric.INTER_TOKEN_LATENCY_S.key(), interTokenLatencyS);
        json.put(LlmperfMetric.TTFT_S.key(), ttftS);
        json.put(LlmperfMetric.END_TO_END_LATENCY_S.key(), endToEndLatencyS);
        json.put(LlmperfMetric.REQUEST_OUTPUT_THROUGHPUT_TOKEN_PER_S.key(), requestOutputThroughputTokenPerS);
        json.put("number_total_tokens", numberTotalTokens);
        json.put(LlmperfMetric.NUMBER_OUTPUT_TOKENS.key(), numberOutputTokens);
        json.put(LlmperfMetric.NUMBER_INPUT_TOKENS.key(), numberInputTokens);
        return json;
    }

    /** Keeps the Python int/float distinction: integral boxes become Long, the rest Double. */
    private static Number pythonNumber(Number value, String name) {
        Objects.requireNonNull(value, name);
        if (value instanceof Long) return value;
        if (value instanceof Integer || value instanceof Short || value instanceof Byte) return value.longValue();
        return value.doubleValue();
    }
}

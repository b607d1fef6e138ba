package io.llmperf4j.report.llmperf;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Hand-built runs for the tests. {@code mixed()} is mirrored by the python/pandas script that produced the golden
 * files under {@code src/test/resources/golden/} (its values were computed there, never by the tests).
 */
final class SampleRuns {

    static final long END_EPOCH_MILLIS = 1_703_136_129_999L;
    static final long MIXED_DURATION_NANOS = 5_500_000_000L;

    private SampleRuns() {
    }

    static BenchmarkSettings settings(String model, Map<String, Object> additional, Map<String, String> metadata) {
        return BenchmarkSettings.builder()
                .model(model)
                .meanInputTokens(550)
                .stddevInputTokens(150)
                .meanOutputTokens(150)
                .stddevOutputTokens(10)
                .numConcurrentRequests(3)
                .timeoutSeconds(90)
                .maxNumCompletedRequests(7)
                .additionalSamplingParams(additional)
                .llmApi("openai")
                .metadata(metadata)
                .endpoint("http://localhost:8000/v1")
                .tokenizer("llama-2 (built in)")
                .promptMode("llmperf")
                .seed(11111L)
                .build();
    }

    static BenchmarkSettings plainSettings() {
        return settings("meta-llama/Llama-2-7b-chat-hf", Map.of(), Map.of());
    }

    /** The additional sampling params of {@link #mixed()}: nested, empty, list and null values. */
    static Map<String, Object> mixedAdditional() {
        Map<String, Object> inner = new LinkedHashMap<>();
        inner.put("b", true);
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("a", inner);
        extra.put("empty", Map.of());
        Map<String, Object> additional = new LinkedHashMap<>();
        additional.put("temperature", 0.7);
        additional.put("top_p", 1);
        additional.put("stop", List.of("\n\n", "END"));
        additional.put("extra", extra);
        additional.put("seed", null);
        return additional;
    }

    /** User metadata of {@link #mixed()}: "model" overwrites the model key in place; non-ASCII value. */
    static Map<String, String> mixedMetadata() {
        Map<String, String> metadata = new LinkedHashMap<>();
        metadata.put("framework", "vllm");
        metadata.put("model", "overridden-model");
        metadata.put("gpu", "A10G \u00fc");
        return metadata;
    }

    static RequestRecord success(int index, long ttftNanos, long lastContentNanos, long e2eNanos, int events,
                                 int inputTokens, int outputTokens) {
        return new RequestRecord(index, "req-" + index, "chatcmpl-" + index, 1_703_136_124_000_000L + index,
                ttftNanos, lastContentNanos, e2eNanos, events, new long[0], "text", inputTokens, 150,
                outputTokens, inputTokens - 40, outputTokens - 1, "length", null);
    }

    static RequestRecord failure(int index, long ttftNanos, long lastContentNanos, long e2eNanos, int events,
                                 int inputTokens, int outputTokens, FailureKind kind, int code, String message) {
        return new RequestRecord(index, "req-" + index, null, 1_703_136_124_000_000L + index, ttftNanos,
                lastContentNanos, e2eNanos, events, new long[0], "", inputTokens, 150, outputTokens, null, null,
                null, new Failure(kind, code, message));
    }

    /** Four successes (one without any content) and three failures (500 twice, -1 once). */
    static List<RequestRecord> mixedRecords() {
        return List.of(
                success(0, 250_000_000L, 2_000_000_000L, 2_100_000_000L, 101, 550, 151),
                success(1, 300_000_000L, 1_800_000_000L, 1_900_000_000L, 90, 480, 120),
                failure(2, -1, -1, 50_000_000L, 0, 610, 1, FailureKind.HTTP_STATUS, 500, "Internal Server Error"),
                success(3, 200_000_000L, 2_500_000_000L, 2_600_000_000L, 130, 601, 131),
                failure(4, 220_000_000L, 900_000_000L, 950_000_000L, 40, 530, 39, FailureKind.CONNECTION_CLOSED,
                        -1, "connection reset"),
                failure(5, -1, -1, 70_000_000L, 0, 575, 1, FailureKind.HTTP_STATUS, 500, "Internal Server Error"),
                success(6, -1, -1, 500_000_000L, 2, 500, 1));
    }

    static BenchmarkRun mixed() {
        return new BenchmarkRun(settings("meta-llama/Llama-2-7b-chat-hf", mixedAdditional(), mixedMetadata()),
                mixedRecords(), END_EPOCH_MILLIS - 5_600, END_EPOCH_MILLIS, MIXED_DURATION_NANOS, 9, false);
    }

    static BenchmarkRun run(BenchmarkSettings settings, long durationNanos, boolean timedOut, RequestRecord... records) {
        return new BenchmarkRun(settings, new ArrayList<>(Arrays.asList(records)), END_EPOCH_MILLIS - 1000,
                END_EPOCH_MILLIS, durationNanos, records.length, timedOut);
    }
}

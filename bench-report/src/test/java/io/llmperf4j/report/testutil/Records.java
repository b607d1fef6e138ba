package io.llmperf4j.report.testutil;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import java.util.List;
import java.util.Map;

/** A fluent builder of hand-made RequestRecords and runs for llmperf4j's own metrics tests. */
public final class Records {

    public static final long MS = 1_000_000L;
    public static final long START_EPOCH_MICROS = 1_703_136_124_000_000L;

    private int index;
    private String id;
    private long startEpochMicros = START_EPOCH_MICROS;
    private long ttftNanos = RequestRecord.NEVER;
    private long lastContentNanos = RequestRecord.NEVER;
    private long e2eNanos = 1_000 * MS;
    private int dataEvents;
    private long[] contentEvents = new long[0];
    private int inputTokens = 550;
    private int maxTokens = 150;
    private int clientTokens = -1;
    private Integer usagePrompt;
    private Integer usageCompletion;
    private String finishReason = "length";
    private Failure failure;
    private int[] eventTokens;
    private long firstReasoningNanos = RequestRecord.NEVER;

    private Records(int index) {
        this.index = index;
        this.id = "req-" + index;
    }

    public static Records request(int index) {
        return new Records(index);
    }

    /** Content events at the given offsets; TTFT and last content follow from them. */
    public Records events(long... offsetsNanos) {
        contentEvents = offsetsNanos.clone();
        dataEvents = offsetsNanos.length + 2; // role chunk and finish chunk
        ttftNanos = offsetsNanos.length == 0 ? RequestRecord.NEVER : offsetsNanos[0];
        lastContentNanos = offsetsNanos.length == 0 ? RequestRecord.NEVER : offsetsNanos[offsetsNanos.length - 1];
        return this;
    }

    /** {@code count} content events, the first at {@code ttft}, each {@code gap} after the previous one. */
    public Records evenEvents(long ttft, long gap, int count) {
        long[] offsets = new long[count];
        for (int i = 0; i < count; i++) offsets[i] = ttft + i * gap;
        return events(offsets);
    }

    /** The client tokenizer's tokens completed in each content event (after {@link #events}). */
    public Records eventTokens(int... tokens) {
        eventTokens = tokens.clone();
        return this;
    }

    /** The first reasoning event's offset. */
    public Records reasoning(long nanos) {
        firstReasoningNanos = nanos;
        return this;
    }

    /** TTFT only, without event times (as read back from a CSV). */
    public Records ttft(long nanos) {
        ttftNanos = nanos;
        lastContentNanos = nanos;
        return this;
    }

    public Records e2e(long nanos) {
        e2eNanos = nanos;
        return this;
    }

    public Records start(long epochMicros) {
        startEpochMicros = epochMicros;
        return this;
    }

    /** Client count as llmperf counts it (BOS included). */
    public Records client(int tokensWithBos) {
        clientTokens = tokensWithBos;
        return this;
    }

    public Records usage(Integer promptTokens, Integer completionTokens) {
        usagePrompt = promptTokens;
        usageCompletion = completionTokens;
        return this;
    }

    public Records input(int tokens) {
        inputTokens = tokens;
        return this;
    }

    public Records maxTokens(int tokens) {
        maxTokens = tokens;
        return this;
    }

    public Records finish(String reason) {
        finishReason = reason;
        return this;
    }

    public Records failed(FailureKind kind, int code, String message) {
        failure = new Failure(kind, code, message);
        return this;
    }

    public RequestRecord build() {
        return new RequestRecord(index, id, failure == null ? "chatcmpl-" + index : null, startEpochMicros, ttftNanos,
                lastContentNanos, e2eNanos, dataEvents, contentEvents, "text", inputTokens, maxTokens, clientTokens,
                usagePrompt, usageCompletion, failure == null ? finishReason : null, failure, null, eventTokens,
                firstReasoningNanos, RequestRecord.NEVER, null);
    }

    public static BenchmarkSettings settings() {
        return BenchmarkSettings.builder()
                .model("meta-llama/Llama-2-7b-chat-hf")
                .meanInputTokens(550)
                .stddevInputTokens(150)
                .meanOutputTokens(150)
                .stddevOutputTokens(10)
                .numConcurrentRequests(3)
                .timeoutSeconds(90)
                .maxNumCompletedRequests(20)
                .additionalSamplingParams(Map.of("temperature", 0.7))
                .llmApi("openai")
                .metadata(Map.of("framework", "vllm"))
                .endpoint("http://localhost:8000/v1")
                .tokenizer("llama-2 (built in)")
                .promptMode("llmperf")
                .seed(11111L)
                .build();
    }

    public static BenchmarkRun run(long durationNanos, boolean timedOut, List<RequestRecord> records) {
        return run(settings(), durationNanos, timedOut, records);
    }

    public static BenchmarkRun run(BenchmarkSettings settings, long durationNanos, boolean timedOut,
                                   List<RequestRecord> records) {
        long end = 1_703_136_129_999L;
        return new BenchmarkRun(settings, records, end - durationNanos / 1_000_000L, end, durationNanos,
                records.size(), timedOut);
    }
}

package io.llmperf4j.engine.load;

import io.llmperf4j.model.RequestRecord;

import java.util.function.ToIntFunction;

/** Where a record's output token count comes from, for throughput figures. */
public final class OutputTokens {

    /**
     * The server's {@code usage.completion_tokens} when it sent one; else the client tokenizer's count
     * ({@link RequestRecord#outputTokens()}, which includes the BOS llmperf counts); else, when nothing counted
     * tokens, the number of content events (one token per chunk, GuideLLM's fallback).
     */
    public static final ToIntFunction<RequestRecord> SERVER_USAGE_ELSE_CLIENT = r -> {
        if (r.usageCompletionTokens() != null) return r.usageCompletionTokens();
        if (r.outputTokens() >= 0) return r.outputTokens();
        return r.contentEventNanos().length;
    };

    /** The client tokenizer's count (llmperf's), 0 when not counted. */
    public static final ToIntFunction<RequestRecord> CLIENT = r -> Math.max(0, r.outputTokens());

    private OutputTokens() {
    }
}

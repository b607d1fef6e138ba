package io.llmperf4j.llama;

import java.util.concurrent.atomic.AtomicLong;

/** What every connection shares: the engine, the model id, the response id counter, the start time. */
final class OpenAiEndpoints {
    final LlamaEngine engine;
    final String modelId;
    final long createdSeconds = System.currentTimeMillis() / 1000;
    private final AtomicLong responses = new AtomicLong();

    OpenAiEndpoints(LlamaEngine engine, String modelId) {
        this.engine = engine;
        this.modelId = modelId;
    }

    /** "chatcmpl-N" or "cmpl-N", N counting from 1 per server. */
    String nextResponseId(boolean chat) {
        return (chat ? "chatcmpl-" : "cmpl-") + responses.incrementAndGet();
    }
}

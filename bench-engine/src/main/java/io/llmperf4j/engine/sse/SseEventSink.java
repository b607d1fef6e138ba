package io.llmperf4j.engine.sse;

/** Receives the events an {@link SseDecoder} dispatches, in stream order, on the decoding thread. */
@FunctionalInterface
public interface SseEventSink {
    void onEvent(SseEvent event);
}

package io.llmperf4j.engine.sse;

import java.util.Arrays;

/** Receives the events an {@link SseDecoder} dispatches, in stream order, on the decoding thread. */
@FunctionalInterface
public interface SseEventSink {
    void onEvent(SseEvent event);

    /**
     * The same event, its data lent: bytes {@code [from, to)} of an array the decoder reuses, valid during this call
     * only. The decoder calls this one; the default copies them into an {@link SseEvent}. A sink that reads the bytes
     * at once and keeps none overrides it and saves the copy (at the stream ceiling, 41 % of the client's
     * allocation).
     */
    default void onEvent(String type, byte[] data, int from, int to, long arrivalNanos) {
        onEvent(new SseEvent(type, Arrays.copyOfRange(data, from, to), arrivalNanos));
    }

    /**
     * A line the standard ignores that is no comment: a field other than {@code data}, {@code event}, {@code id} and
     * {@code retry} (QA: {@code hello} alone, a chunk's JSON without {@code data:}), its bytes lent as
     * {@code [from, to)} of {@code line} during this call only, without its line end. Ignoring it is right; the
     * default does only that.
     */
    default void onIgnoredLine(byte[] line, int from, int to) {
    }
}

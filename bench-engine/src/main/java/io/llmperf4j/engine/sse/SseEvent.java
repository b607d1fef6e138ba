package io.llmperf4j.engine.sse;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One dispatched Server-Sent Event.
 *
 * @param type         the value of the last {@code event:} line, or null when the event had none
 * @param data         the {@code data:} lines joined with LF, as raw UTF-8 bytes; owned by the event, never mutate
 * @param arrivalNanos {@code System.nanoTime()} of the read that delivered the event's last bytes
 */
public record SseEvent(String type, byte[] data, long arrivalNanos) {

    private static final byte[] DONE = "[DONE]".getBytes(StandardCharsets.US_ASCII);

    public SseEvent {
        Objects.requireNonNull(data, "data");
    }

    /** The data as text (for tests and messages; the hot path parses the bytes). */
    public String dataAsString() {
        return new String(data, StandardCharsets.UTF_8);
    }

    /** True for the OpenAI end marker {@code [DONE]}, surrounding ASCII whitespace ignored (llmperf strips lines). */
    public boolean isDoneMarker() {
        return isDoneMarker(data, 0, data.length);
    }

    /** {@link #isDoneMarker()} for data lent as bytes {@code [from, to)} of {@code data}. */
    public static boolean isDoneMarker(byte[] data, int from, int to) {
        while (from < to && isSpace(data[from])) from++;
        while (to > from && isSpace(data[to - 1])) to--;
        if (to - from != DONE.length) return false;
        for (int i = 0; i < DONE.length; i++) {
            if (data[from + i] != DONE[i]) return false;
        }
        return true;
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r';
    }

    @Override
    public String toString() {
        return "SseEvent[type=" + type + ", bytes=" + data.length + ", arrivalNanos=" + arrivalNanos + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SseEvent e && Objects.equals(type, e.type) && java.util.Arrays.equals(data, e.data)
                && arrivalNanos == e.arrivalNanos;
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, java.util.Arrays.hashCode(data), arrivalNanos);
    }
}

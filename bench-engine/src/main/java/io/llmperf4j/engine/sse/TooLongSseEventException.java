package io.llmperf4j.engine.sse;

/** An SSE event grew beyond the configured maximum; the stream cannot be decoded further. */
public final class TooLongSseEventException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final long eventBytes;
    private final int maxEventBytes;

    public TooLongSseEventException(long eventBytes, int maxEventBytes) {
        super("SSE event (" + eventBytes + " bytes so far) exceeds the allowed maximum (" + maxEventBytes
                + " bytes); raise maxEventBytes");
        this.eventBytes = eventBytes;
        this.maxEventBytes = maxEventBytes;
    }

    /** Bytes of the event seen when the limit was crossed (a lower bound of its real size). */
    public long eventBytes() {
        return eventBytes;
    }

    public int maxEventBytes() {
        return maxEventBytes;
    }
}

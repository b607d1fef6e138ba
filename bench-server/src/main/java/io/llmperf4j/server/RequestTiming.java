package io.llmperf4j.server;

import java.util.Objects;

/**
 * What the server did for one completion request, as {@link System#nanoTime()} values of the server's JVM.
 * A flush timestamp is taken right after the flush call returned on the I/O thread: the bytes are then in the
 * kernel's socket buffer (unless the channel was not writable, which pauses generation until it is).
 *
 * @param requestId                the response {@code id}, e.g. {@code chatcmpl-7}
 * @param stream                   whether the response was streamed
 * @param arrivalNanos             when the full request had been read
 * @param slotGrantedNanos         when it got a sequence slot, or {@link #NOT_REACHED}
 * @param firstContentDueNanos     when the first content chunk was due by the timing contract, or
 *                                 {@link #NOT_REACHED}
 * @param firstContentFlushedNanos when the first content chunk (non-streaming: the whole response) was flushed,
 *                                 or {@link #NOT_REACHED}
 * @param lastContentFlushedNanos  when the last content chunk (non-streaming: the whole response) was flushed,
 *                                 or {@link #NOT_REACHED}
 * @param promptTokens             the prompt token count reported in usage
 * @param completionTokensSent     completion tokens written to the client
 * @param maxSendLagNanos          the largest delay of a flush behind its chunk's due time (0 when every chunk
 *                                 left on time): how far the simulator itself fell behind its schedule
 * @param outcome                  how it ended ({@link FaultKind#DROP_MID_STREAM} ends ABORTED)
 * @param fault                    the fault injected into this response ({@link FaultKind#NONE} for none); requests
 *                                 failed by an HTTP-status or reset fault never start generating and are not
 *                                 reported
 * @param chunkSentNanos           per chunk k of a streamed response (one SSE event each), when its write began: just
 *                                 before the flush that handed it to the kernel (the chunks of one batch share it).
 *                                 Holds the chunks sent, in order; empty for a non-streamed response. The reference
 *                                 for calibrating a client's per-event arrival times
 */
public record RequestTiming(
        String requestId,
        boolean stream,
        long arrivalNanos,
        long slotGrantedNanos,
        long firstContentDueNanos,
        long firstContentFlushedNanos,
        long lastContentFlushedNanos,
        int promptTokens,
        int completionTokensSent,
        long maxSendLagNanos,
        Outcome outcome,
        FaultKind fault,
        long[] chunkSentNanos) {

    /** Marks a timestamp whose event never happened (nanoTime values may be negative, so not -1). */
    public static final long NOT_REACHED = Long.MIN_VALUE;

    public enum Outcome {
        /** Every token was sent and the response ended normally. */
        COMPLETED,
        /** The connection closed first (client disconnect or server shutdown); the slot was freed. */
        ABORTED
    }

    public RequestTiming {
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(fault, "fault");
        chunkSentNanos = chunkSentNanos == null ? new long[0] : chunkSentNanos;
    }

    /** Without per-chunk send times. */
    public RequestTiming(String requestId, boolean stream, long arrivalNanos, long slotGrantedNanos,
                         long firstContentDueNanos, long firstContentFlushedNanos, long lastContentFlushedNanos,
                         int promptTokens, int completionTokensSent, long maxSendLagNanos, Outcome outcome,
                         FaultKind fault) {
        this(requestId, stream, arrivalNanos, slotGrantedNanos, firstContentDueNanos, firstContentFlushedNanos,
                lastContentFlushedNanos, promptTokens, completionTokensSent, maxSendLagNanos, outcome, fault, null);
    }

    public boolean firstContentFlushed() {
        return firstContentFlushedNanos != NOT_REACHED;
    }
}

package io.llmperf4j.engine.client;

import io.llmperf4j.model.RequestRecord;

import java.util.concurrent.CompletableFuture;

/** One request in flight. */
public interface RequestHandle {

    /** The {@code X-Request-Id} sent, also the record's {@code clientRequestId}. */
    String clientRequestId();

    /**
     * The {@link System#nanoTime()} the request's clock started at (its record's offsets count from it), or
     * {@link RequestRecord#NEVER} when the client does not tell. For comparing with timestamps taken elsewhere in
     * the same process, such as an embedded server's send times.
     */
    default long startNanos() {
        return RequestRecord.NEVER;
    }

    /**
     * Completes exactly once with the request's record, success or failure; never exceptionally, and never on an I/O
     * thread. Cancelling the returned future does not cancel the request: use {@link #cancel()}.
     */
    CompletableFuture<RequestRecord> completion();

    /**
     * Closes the exchange; the record completes with {@code FailureKind.CANCELLED}, keeping the data received so far.
     * Does nothing when the request has already ended. Safe from any thread.
     */
    void cancel();
}

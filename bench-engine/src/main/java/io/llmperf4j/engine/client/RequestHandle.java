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
     * How long the client itself held the request between its start stamp and its last byte in the socket: the time
     * from when a connection (or a slot to open one) was its to the write's end, less the connect and TLS of a
     * connection opened for it. Not the wait for a busy connection (every one open held by other requests in flight),
     * which is the pool's limit, not a delay. A hand-off to an event loop kept busy or cold, and the write itself, are
     * in it: time the request spent in the client after it was due to go out, which the open loop's send lag counts.
     * Read once the request has ended; 0 before its write or when the client does not tell.
     */
    default long clientDelayNanos() {
        return 0;
    }

    /**
     * Completes exactly once with the request's record, success or failure; never exceptionally, and never on an I/O
     * thread. Cancelling the returned future does not cancel the request: use {@link #cancel()}.
     */
    CompletableFuture<RequestRecord> completion();

    /**
     * Runs {@code action} once the request is over on the wire: its response complete (its last byte read; for a
     * stream, its API's end event, {@code data: [DONE]}, read, even when the HTTP body has not ended yet: at most
     * a couple of milliseconds later on a reusable connection, which looks for the body's end just behind it) or its
     * failure seen, and its connection given back, before its record is complete. "Given back" includes a connection
     * that still reads the rest of a body ended late after the end event: it drains in the background, and no request
     * gets it until that body has ended, so an action that sends the next request at once gets another connection. The action runs on the thread that ended the
     * request, often an I/O thread, so it must be short and never block; when the request has ended already, it runs
     * at once on the calling thread. At most one action per request. A closed loop re-sends from here: the next
     * request then goes out on the thread that saw the last one end, with no hand-off between threads.
     * By default, when the record completes.
     */
    default void whenEnded(Runnable action) {
        completion().whenComplete((record, error) -> action.run());
    }

    /**
     * SSE events decoded so far, {@code [DONE]} included: what a request still in flight has brought (the pre-run
     * check's waiting line says it). Safe from any thread; 0 when the client does not tell.
     */
    default int eventsDecoded() {
        return 0;
    }

    /**
     * Whether the response's status and headers have come. Safe from any thread; false when the client does not tell.
     */
    default boolean headersReceived() {
        return false;
    }

    /**
     * Closes the exchange; the record completes with {@code FailureKind.CANCELLED}, keeping the data received so far.
     * Does nothing when the request has already ended. Safe from any thread.
     */
    void cancel();
}

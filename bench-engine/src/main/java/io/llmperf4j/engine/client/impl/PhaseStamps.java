package io.llmperf4j.engine.client.impl;

import io.llmperf4j.model.RequestPhases;
import io.llmperf4j.model.RequestRecord;

/**
 * The {@link System#nanoTime()} moments of one request's way to its response head, stamped on the connection's
 * event loop as each happens: the connection was handed over (after a connect and TLS, or from the pool), the write
 * of the request completed (less any time the writer was off the CPU after it: {@link WriteEndClock}), the response
 * head arrived (its read's arrival stamp). A request moved to another
 * connection keeps the stamps of the last one. Event-loop confined; copied out as offsets when the exchange ends.
 */
final class PhaseStamps {

    private static final long UNSET = Long.MIN_VALUE;

    private long connectionReadyAt = UNSET;
    private long requestWrittenAt = UNSET;
    private long responseHeadersAt = UNSET;
    private long tlsNanos = RequestRecord.NEVER;

    /** A connection is writable for the request now; a later connection (a retry) replaces the earlier stamps. */
    void connectionReady(long nowNanos) {
        connectionReadyAt = nowNanos;
        requestWrittenAt = UNSET;
        responseHeadersAt = UNSET;
    }

    /** The TLS handshake of the connection opened for this request took this long (-1: plain TCP). */
    void tlsHandshake(long nanos) {
        tlsNanos = nanos;
    }

    void requestWritten(long nowNanos) {
        if (requestWrittenAt == UNSET) requestWrittenAt = nowNanos;
    }

    void responseHeaders(long arrivalNanos) {
        if (responseHeadersAt == UNSET) responseHeadersAt = arrivalNanos;
    }

    /** Offsets from {@code startNanos}; -1 for what never happened. */
    RequestPhases toPhases(long startNanos) {
        return new RequestPhases(offset(connectionReadyAt, startNanos), tlsNanos, offset(requestWrittenAt, startNanos),
                offset(responseHeadersAt, startNanos));
    }

    private static long offset(long at, long startNanos) {
        return at == UNSET ? RequestRecord.NEVER : Math.max(0, at - startNanos);
    }
}

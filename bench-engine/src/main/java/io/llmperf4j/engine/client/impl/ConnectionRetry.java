package io.llmperf4j.engine.client.impl;

import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.netty.channel.ChannelFuture;

/**
 * Whether a request whose connection failed may be sent again on another one, and otherwise what failure it records.
 * A request moves only when it provably never reached the server whole, so the server never sees more requests than
 * are recorded and a server that resets connections after reading a request shows up as failures:
 * <ul>
 *   <li>a reused connection found closed before the write: always (nothing was sent; each dead connection is
 *       dropped, so this ends);</li>
 *   <li>a write that failed on a reused connection (the stale keep-alive race): once;</li>
 *   <li>once the write has succeeded, a close before the response head is CONNECTION_CLOSED, even though it may be
 *       the server closing an idle connection just as the request arrived;</li>
 *   <li>a fresh connection: never.</li>
 * </ul>
 * Holds the current attempt (the connection was reused or new, its write) and whether the one retry is spent.
 * Confined to the exchange's event loop, like the exchange's I/O state.
 */
final class ConnectionRetry {

    private final String hostAndPort;
    /** The current connection came from the pool's idle set rather than a fresh connect. */
    private boolean reused;
    /** The current connection carried an earlier response (not merely preconnected and idle). */
    private boolean servedBefore;
    /** The write of the request on the current connection; once it succeeded, no retry. */
    private ChannelFuture write;
    /** A failed write on a stale pooled connection was already retried once (bounds the retry). */
    private boolean retried;

    ConnectionRetry(String hostAndPort) {
        this.hostAndPort = hostAndPort;
    }

    /**
     * A connection was attached: a new attempt begins.
     *
     * @param reusedConnection it came from the idle set
     * @param carriedResponse  it carried an earlier response, so a close may be the server ending it as idle
     */
    void attempt(boolean reusedConnection, boolean carriedResponse) {
        reused = reusedConnection;
        servedBefore = carriedResponse;
        write = null;
    }

    /** The request's write on the current connection. */
    void writing(ChannelFuture future) {
        write = future;
    }

    /** The request went back to the pool: the attempt is over. */
    void abandon() {
        write = null;
    }

    boolean reused() {
        return reused;
    }

    /**
     * Every byte of the request was handed to the kernel. Read from the future, not set by its listener, because a
     * listener may be notified later than the close that follows.
     */
    boolean requestSent() {
        return write != null && write.isSuccess();
    }

    /** The attached connection was closed before anything was written: null to retry, else the failure. */
    Failure closedBeforeWrite() {
        return reused ? null : new Failure(FailureKind.CONNECTION_CLOSED, -1, FailureMessages.sendFailed(hostAndPort,
                "the new connection closed before the request could be written"));
    }

    /**
     * The request did not leave whole. On a reused connection that is the keep-alive race (the server closed or reset
     * it while idle and we wrote into it): null, to send it once more on another connection (TTFT and e2e still count
     * from the original start). On a fresh connection, or a second time, the failure to record.
     */
    Failure sendFailed(String detail) {
        if (reused && !retried) {
            retried = true;
            return null;
        }
        return new Failure(FailureKind.CONNECTION_CLOSED, -1, FailureMessages.sendFailed(hostAndPort, detail));
    }

    /**
     * The connection ended before any response byte. If the write had not finished, the server cannot have the whole
     * request ({@link #sendFailed}). If it had, the server may have read and acted on it: recorded, never re-sent.
     *
     * @return null to retry, else the failure
     */
    Failure lostBeforeResponse(String detail) {
        if (!requestSent()) {
            return sendFailed(detail == null ? "the connection closed while the request was being written" : detail);
        }
        return new Failure(FailureKind.CONNECTION_CLOSED, -1, FailureMessages.closedAfterSend(hostAndPort, detail,
                servedBefore));
    }
}

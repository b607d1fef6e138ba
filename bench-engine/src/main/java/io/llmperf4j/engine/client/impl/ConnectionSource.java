package io.llmperf4j.engine.client.impl;

import io.netty.channel.Channel;

/**
 * Where an {@link Exchange} gets its connection and gives it back: the {@link ConnectionPool}, or in tests a single
 * {@code EmbeddedChannel}, so the exchange's state machine can be driven byte by byte.
 */
public interface ConnectionSource {

    /** Finds or opens a connection for {@code exchange} and attaches it on the connection's event loop; never blocks. */
    void acquire(Exchange exchange);

    /** Gives a connection back: kept for reuse when {@code reusable}, closed otherwise. */
    void release(Channel ch, boolean reusable);

    /**
     * Whether a connection given back as reusable is kept for another request; false when each request gets its own
     * connection (then a response's late body end is not worth waiting for).
     */
    default boolean keepsConnections() {
        return true;
    }

    /**
     * {@code ch}'s request is over, but the connection still reads the rest of its response's body: it no longer
     * holds a request's place, and no request may have it until {@link #drained} or its close.
     */
    default void draining(Channel ch) {
    }

    /** A {@link #draining} connection's body ended: it can carry another request. */
    default void drained(Channel ch) {
        release(ch, true);
    }
}

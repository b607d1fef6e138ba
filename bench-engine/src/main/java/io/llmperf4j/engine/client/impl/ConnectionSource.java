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
}

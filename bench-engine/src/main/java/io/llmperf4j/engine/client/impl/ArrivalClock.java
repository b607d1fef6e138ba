package io.llmperf4j.engine.client.impl;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * First inbound handler of a connection: stamps every raw read with {@code System.nanoTime()} before TLS and HTTP
 * decoding, so that an event's time is when its last bytes arrived, not when the decoders got to them.
 * Event-loop confined.
 */
public final class ArrivalClock extends ChannelInboundHandlerAdapter {

    private long lastReadNanos = System.nanoTime();

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        lastReadNanos = System.nanoTime();
        ctx.fireChannelRead(msg);
    }

    /** Time of the latest read on this connection. */
    public long lastReadNanos() {
        return lastReadNanos;
    }
}

package io.llmperf4j.engine.client.impl;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * First inbound handler of a connection: stamps every raw read with {@code System.nanoTime()} before TLS and HTTP
 * decoding, so that an event's time is when its last bytes arrived, not when the decoders got to them.
 * Event-loop confined.
 */
public final class ArrivalClock extends ChannelInboundHandlerAdapter {

    private long lastReadNanos = System.nanoTime();
    /** When the connection was seen closed (its end of input), -1 while it is open. */
    private long closedNanos = -1;
    /** The connection's first byte from the server, or -1 before any: says what a response that is no HTTP was. */
    private int firstByte = -1;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        lastReadNanos = System.nanoTime();
        if (firstByte < 0 && msg instanceof ByteBuf bytes && bytes.isReadable()) {
            firstByte = bytes.getUnsignedByte(bytes.readerIndex());
        }
        ctx.fireChannelRead(msg);
    }

    /**
     * Stamps the close before the decoders see it: a body that ends with the connection (no length, no chunking) is
     * handed over by the HTTP decoder only now, and it ends at the close, not at its last bytes' read.
     */
    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        closedNanos = System.nanoTime();
        ctx.fireChannelInactive();
    }

    /** The first byte the server sent on this connection (before TLS decoding), or -1 when none came yet. */
    public int firstByte() {
        return firstByte;
    }

    /** Time of the latest read on this connection. */
    public long lastReadNanos() {
        return lastReadNanos;
    }

    /** When the connection was seen closed, or -1 while it is open. */
    public long closedNanos() {
        return closedNanos;
    }
}

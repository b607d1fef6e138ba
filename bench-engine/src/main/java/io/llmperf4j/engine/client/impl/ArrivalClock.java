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

    /** The first byte the server sent on this connection (before TLS decoding), or -1 when none came yet. */
    public int firstByte() {
        return firstByte;
    }

    /** Time of the latest read on this connection. */
    public long lastReadNanos() {
        return lastReadNanos;
    }
}

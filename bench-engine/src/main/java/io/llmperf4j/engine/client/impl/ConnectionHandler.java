package io.llmperf4j.engine.client.impl;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.util.ReferenceCountUtil;

/**
 * Last handler of a pooled connection: routes decoded HTTP objects, close and errors to the exchange currently bound
 * to the connection. A connection with no exchange that receives anything is out of step and gets closed.
 * Event-loop confined.
 */
public final class ConnectionHandler extends ChannelInboundHandlerAdapter {

    private final ArrivalClock clock;
    private Exchange exchange;
    /** The connection carried a whole response (a preconnected one that never did is not "reused" in messages). */
    private boolean served;

    public ConnectionHandler(ArrivalClock clock) {
        this.clock = clock;
    }

    void bind(Exchange e) {
        this.exchange = e;
    }

    void unbind(Exchange e) {
        if (exchange == e) exchange = null;
    }

    /** A response on this connection ended whole. */
    void served() {
        served = true;
    }

    /** Whether a response on this connection ended whole. */
    boolean hasServed() {
        return served;
    }

    ArrivalClock clock() {
        return clock;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            Exchange e = exchange;
            if (e == null || !(msg instanceof HttpObject)) {
                ctx.close(); // bytes for no request: the connection cannot be trusted any more
                return;
            }
            if (msg instanceof HttpResponse head && CompressedBodies.decodeFromHere(ctx, head)) return; // back decoded
            e.onHttpObject((HttpObject) msg, clock.lastReadNanos());
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        Exchange e = exchange;
        if (e != null) e.onReadComplete();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        Exchange e = exchange;
        if (e != null) e.onInactive(System.nanoTime());
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Exchange e = exchange;
        if (e != null) {
            e.onException(cause, System.nanoTime());
        } else {
            ctx.close();
        }
    }
}

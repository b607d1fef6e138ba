package io.llmperf4j.engine.client.impl;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;

/**
 * Last handler of a pooled connection: routes decoded HTTP objects, close and errors to the exchange currently bound
 * to the connection. A connection with no exchange that receives anything is out of step and gets closed, except
 * while it drains the rest of a body its exchange no longer needs ({@link #drain}).
 * Event-loop confined.
 */
public final class ConnectionHandler extends ChannelInboundHandlerAdapter {

    private final ArrivalClock clock;
    private Exchange exchange;
    /** The connection carried a whole response (a preconnected one that never did is not "reused" in messages). */
    private boolean served;
    /** While draining: what to do once the body has ended (give the connection back); null otherwise. */
    private Runnable onDrained;
    private ScheduledFuture<?> drainLimit;

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

    /**
     * The bound exchange ended before its response's body did (a stream's end event, then a late terminator): the
     * rest of the body is read and dropped with no exchange bound, then {@code onDrained} runs (the connection goes
     * back to the pool). The connection is closed instead when the body has not ended within {@code limitNanos}, or
     * when anything but this body's rest arrives. Until one or the other, no request can have the connection.
     */
    void drain(Channel ch, long limitNanos, Runnable onDrained) {
        this.onDrained = onDrained;
        drainLimit = ch.eventLoop().schedule(() -> {
            if (this.onDrained == onDrained) {
                stopDraining();
                ch.close(); // the body did not end in time: the connection cannot carry another response
            }
        }, limitNanos, TimeUnit.NANOSECONDS);
    }

    /** Whether the connection is reading the rest of an ended response's body (tests). */
    boolean isDraining() {
        return onDrained != null;
    }

    private Runnable stopDraining() {
        Runnable then = onDrained;
        onDrained = null;
        if (drainLimit != null) drainLimit.cancel(false);
        drainLimit = null;
        return then;
    }

    /** Reads one object of the body being drained; the body's end gives the connection back. */
    private void drainRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof HttpObject o) || o.decoderResult().isFailure() || msg instanceof HttpResponse) {
            stopDraining();
            ctx.close(); // not the rest of that body: the connection is out of step
        } else if (msg instanceof LastHttpContent) {
            Runnable then = stopDraining();
            served = true;
            then.run();
        }
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
            if (onDrained != null) {
                drainRead(ctx, msg);
                return;
            }
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
        stopDraining(); // a close while draining: the pool's close listener frees the slot
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
            stopDraining();
            ctx.close();
        }
    }
}

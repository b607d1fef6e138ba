package io.llmperf4j.engine.client.impl;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/** The event loop group and channel type: native epoll when it loads, NIO otherwise. */
public final class Transport {

    private final EventLoopGroup group;
    private final Class<? extends Channel> channelClass;
    private final String name;

    private Transport(EventLoopGroup group, Class<? extends Channel> channelClass, String name) {
        this.group = group;
        this.channelClass = channelClass;
        this.name = name;
    }

    public static Transport create(int ioThreads, boolean preferNative) {
        ThreadFactory threads = new DefaultThreadFactory("llmperf4j-io", true);
        if (preferNative && Epoll.isAvailable()) {
            return new Transport(new MultiThreadIoEventLoopGroup(ioThreads, threads, EpollIoHandler.newFactory()),
                    EpollSocketChannel.class, "epoll");
        }
        return new Transport(new MultiThreadIoEventLoopGroup(ioThreads, threads, NioIoHandler.newFactory()),
                NioSocketChannel.class, "nio");
    }

    public EventLoopGroup group() {
        return group;
    }

    public Class<? extends Channel> channelClass() {
        return channelClass;
    }

    /** "epoll" or "nio". */
    public String name() {
        return name;
    }

    /** Stops the event loops, waiting at most {@code timeoutMillis}. */
    public void shutdown(long timeoutMillis) {
        group.shutdownGracefully(0, timeoutMillis, TimeUnit.MILLISECONDS).awaitUninterruptibly(timeoutMillis);
    }
}

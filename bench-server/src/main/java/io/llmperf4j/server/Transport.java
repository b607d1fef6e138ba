package io.llmperf4j.server;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;

/**
 * The socket transport. Epoll wakes scheduled tasks through a timerfd with microsecond precision; NIO's
 * selector rounds every wait up to whole milliseconds, so its chunks run up to about 1 ms late (never early).
 */
enum Transport {
    EPOLL("epoll") {
        @Override
        IoHandlerFactory ioHandlerFactory() {
            return EpollIoHandler.newFactory();
        }

        @Override
        Class<? extends ServerChannel> serverChannelClass() {
            return EpollServerSocketChannel.class;
        }
    },
    NIO("nio") {
        @Override
        IoHandlerFactory ioHandlerFactory() {
            return NioIoHandler.newFactory();
        }

        @Override
        Class<? extends ServerChannel> serverChannelClass() {
            return NioServerSocketChannel.class;
        }
    };

    final String displayName;

    Transport(String displayName) {
        this.displayName = displayName;
    }

    abstract IoHandlerFactory ioHandlerFactory();

    abstract Class<? extends ServerChannel> serverChannelClass();

    /** Epoll where its native library loads (Linux x86_64), NIO elsewhere. */
    static Transport best() {
        try {
            return Epoll.isAvailable() ? EPOLL : NIO;
        } catch (LinkageError e) {
            return NIO;
        }
    }
}

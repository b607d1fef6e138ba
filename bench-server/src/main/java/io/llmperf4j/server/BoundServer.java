package io.llmperf4j.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.GlobalEventExecutor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The listening socket, the I/O threads and their shutdown, shared by {@link SimulatedServer} and
 * {@link EngineServer}: one pipeline ({@link SimulatorInitializer}) per connection.
 */
final class BoundServer {

    private static final long SHUTDOWN_TIMEOUT_MILLIS = 3_000;

    private final ServerContext context;
    private final EventLoopGroup group;
    private final Channel serverChannel;
    private final ChannelGroup connections;
    private final Transport transport;
    private final int port;
    private final AtomicBoolean closing = new AtomicBoolean();
    private final CompletableFuture<Void> closeFuture = new CompletableFuture<>();

    private BoundServer(ServerContext context, EventLoopGroup group, Channel serverChannel, ChannelGroup connections,
                        Transport transport) {
        this.context = context;
        this.group = group;
        this.serverChannel = serverChannel;
        this.connections = connections;
        this.transport = transport;
        this.port = ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /**
     * Binds {@code context.config}'s host and port and starts serving.
     *
     * @param threadName prefix of the I/O threads' names
     * @throws UncheckedIOException when the address cannot be bound (the context's executor is then shut down)
     */
    static BoundServer bind(ServerContext context, Transport transport, String threadName) {
        SimulatorConfig config = context.config;
        int ioThreads = config.ioThreads() > 0 ? config.ioThreads() : Runtime.getRuntime().availableProcessors();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(ioThreads, new DefaultThreadFactory(threadName, true),
                transport.ioHandlerFactory());
        // every accepted connection, so close() closes them itself; one that registers after that is closed at once
        ChannelGroup connections = new DefaultChannelGroup(threadName + "-connections", GlobalEventExecutor.INSTANCE,
                true);
        ChannelFuture bound = null;
        try {
            bound = new ServerBootstrap()
                    .group(group)
                    .channel(transport.serverChannelClass())
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childOption(ChannelOption.TCP_NODELAY, true) // each chunk must leave at once
                    .childHandler(new SimulatorInitializer(context, connections))
                    .bind(config.host(), config.port());
            Channel channel = bound.sync().channel();
            return new BoundServer(context, group, channel, connections, transport);
        } catch (Exception e) {
            // an interrupt ends the wait, not the bind, which goes on in the I/O thread: wait for it and close what
            // it bound, so the port is free when this returns, rather than bound with no thread left to serve it
            if (bound != null) {
                bound.awaitUninterruptibly(SHUTDOWN_TIMEOUT_MILLIS);
                bound.channel().close().awaitUninterruptibly(SHUTDOWN_TIMEOUT_MILLIS);
            }
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly(SHUTDOWN_TIMEOUT_MILLIS);
            if (context.promptCountExecutor != null) context.promptCountExecutor.shutdownNow();
            boolean interrupted = e instanceof InterruptedException;
            if (interrupted) Thread.currentThread().interrupt();
            String message = "could not bind " + config.host() + ":" + config.port() + ": "
                    + (interrupted ? "interrupted" : e.getMessage());
            throw new UncheckedIOException(message, e instanceof IOException ? (IOException) e : new IOException(e));
        }
    }

    int port() {
        return port;
    }

    Transport transport() {
        return transport;
    }

    /** The OpenAI base URL, e.g. {@code http://127.0.0.1:8000/v1}; a wildcard bind address maps to 127.0.0.1. */
    String baseUrl() {
        String host = context.config.host();
        if (host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]")) host = "127.0.0.1";
        if (host.contains(":") && !host.startsWith("[")) host = "[" + host + "]";
        return "http://" + host + ":" + port + "/v1";
    }

    CompletableFuture<Void> closeFuture() {
        return closeFuture.copy();
    }

    void awaitClose() throws InterruptedException {
        try {
            closeFuture.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("unreachable: the close future never fails", e);
        }
    }

    /**
     * Stops accepting, closes every connection and stops the I/O threads; waits at most a few seconds. Idempotent.
     * Called on an I/O thread, it does not wait.
     *
     * <p>The connections are closed here, not left to the event loops' shutdown: a Netty 4.2 loop closes its channels
     * only when it sees the shutdown between its I/O and its tasks, so a loop busy with a task (a chunk's timer) when
     * the shutdown began would stop without closing them, and a connection accepted meanwhile and registered later
     * would never be closed; their clients would wait for ever. The close tasks are queued before the shutdown, and
     * a loop runs every queued task before it terminates.
     */
    void close() {
        if (!closing.compareAndSet(false, true)) return;
        serverChannel.close();
        connections.close();
        var terminated = group.shutdownGracefully(0, SHUTDOWN_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        if (context.promptCountExecutor != null) context.promptCountExecutor.shutdownNow();
        terminated.addListener(f -> closeFuture.complete(null));
        if (!inEventLoop()) terminated.awaitUninterruptibly(SHUTDOWN_TIMEOUT_MILLIS + 1_000);
    }

    private boolean inEventLoop() {
        for (EventExecutor executor : group) {
            if (executor.inEventLoop()) return true;
        }
        return false;
    }
}

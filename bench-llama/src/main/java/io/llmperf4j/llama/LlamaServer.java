package io.llmperf4j.llama;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An OpenAI-compatible server in front of a real inference engine ({@link LlamaEngine}: llama.cpp, one decoding
 * thread, a FIFO queue).
 *
 * <h2>Endpoints</h2>
 * {@code POST /v1/chat/completions} (messages rendered through the model's chat template) and
 * {@code POST /v1/completions} (a string prompt), streaming ({@code "stream": true}, SSE) or not;
 * {@code GET /v1/models} (the one model id); {@code GET /health}. Anything else is a 404; a body that is not JSON, or
 * lacks messages / prompt, is a 400, as is a request whose prompt plus max_tokens exceeds the context. Requests may
 * name any model.
 *
 * <h2>Stream format (as vLLM)</h2>
 * Every event is {@code data: {json}\n\n} with the same id ("chatcmpl-N" / "cmpl-N"), object, created and model.
 * Chat starts with {@code delta: {"role":"assistant","content":""}}; then one event per piece of text llama.cpp
 * hands over (usually one token; a character split over several byte tokens arrives whole, in one event); then an
 * event with an empty delta and {@code "finish_reason":"length"}; then, with {@code stream_options.include_usage},
 * an event with {@code "choices":[]} and {@code usage}; then {@code data: [DONE]}. A non-streaming response is one
 * {@code chat.completion} / {@code text_completion} object with the whole text and usage.
 *
 * <h2>Tokens</h2>
 * A response always has exactly max_tokens ({@code max_completion_tokens}, else {@code max_tokens}, else
 * {@value OpenAiRequest#DEFAULT_MAX_TOKENS}) completion tokens: EOS is ignored. {@code usage.prompt_tokens} is
 * llama.cpp's count of the prompt it decodes (the rendered chat template included) plus BOS. Sampling: temperature,
 * top_p and seed are passed to llama.cpp; other parameters are ignored.
 */
public final class LlamaServer implements AutoCloseable {
    private static final long SHUTDOWN_TIMEOUT_MILLIS = 3_000;

    private final EventLoopGroup group;
    private final Channel serverChannel;
    private final String host;
    private final int port;
    private final AtomicBoolean closing = new AtomicBoolean();
    private final CompletableFuture<Void> closeFuture = new CompletableFuture<>();

    private LlamaServer(EventLoopGroup group, Channel serverChannel, String host) {
        this.group = group;
        this.serverChannel = serverChannel;
        this.host = host;
        this.port = ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /**
     * Binds {@code host:port} (port 0 picks a free one) and serves {@code engine} under {@code modelId}. The engine
     * stays the caller's to close.
     *
     * @throws UncheckedIOException when the address cannot be bound
     */
    public static LlamaServer start(LlamaEngine engine, String modelId, String host, int port) {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("llmperf4j-llama-io", true),
                NioIoHandler.newFactory());
        OpenAiEndpoints endpoints = new OpenAiEndpoints(engine, modelId);
        try {
            Channel channel = new ServerBootstrap()
                    .group(group)
                    .channel(NioServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childOption(ChannelOption.TCP_NODELAY, true) // each token must leave at once
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline()
                                    .addLast("http", new HttpServerCodec())
                                    .addLast("keepAlive", new HttpServerKeepAliveHandler())
                                    .addLast("aggregator", new HttpObjectAggregator(16 * 1024 * 1024))
                                    .addLast("openai", new OpenAiHandler(endpoints));
                        }
                    })
                    .bind(host, port)
                    .sync()
                    .channel();
            return new LlamaServer(group, channel, host);
        } catch (Exception e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
            String message = "could not bind " + host + ":" + port + ": " + e.getMessage();
            throw new UncheckedIOException(message, e instanceof IOException ? (IOException) e : new IOException(e));
        }
    }

    public int port() {
        return port;
    }

    /** The OpenAI base URL, e.g. {@code http://127.0.0.1:8000/v1}; a wildcard bind address maps to 127.0.0.1. */
    public String baseUrl() {
        String shown = host.equals("0.0.0.0") || host.equals("::") ? "127.0.0.1" : host;
        if (shown.contains(":") && !shown.startsWith("[")) shown = "[" + shown + "]";
        return "http://" + shown + ":" + port + "/v1";
    }

    /** Blocks until the server has stopped. */
    public void awaitClose() throws InterruptedException {
        try {
            closeFuture.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("unreachable: the close future never fails", e);
        }
    }

    /** Stops accepting and closes every connection (generations in flight see their client gone). Idempotent. */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) return;
        serverChannel.close();
        var terminated = group.shutdownGracefully(0, SHUTDOWN_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        terminated.addListener(f -> closeFuture.complete(null));
        terminated.awaitUninterruptibly(SHUTDOWN_TIMEOUT_MILLIS + 1_000);
    }

    @Override
    public String toString() {
        return "LlamaServer[" + baseUrl() + "]";
    }
}

package io.llmperf4j.engine.testserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Netty SSE server on 127.0.0.1 that streams a chat completion on a timer: the role chunk at once, the first
 * content chunk after {@code firstTokenDelay}, then one content chunk ("tok ", one token each) every
 * {@code interTokenDelay} until the request's {@code max_tokens}, then a finish chunk, a usage chunk
 * ({@code completion_tokens = max_tokens}) and {@code [DONE]}. Keep-alive; timers run on the event loop, so it
 * scales to many concurrent streams. Counts requests and the most it ever had in flight, and keeps every prompt.
 */
public final class TimedSseServer implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] ROLE = event(Streams.role());
    private static final byte[] TOKEN = event(Streams.content("tok "));
    private static final byte[] FINISH = event(Streams.finish("length"));
    private static final byte[] DONE = event("[DONE]");

    private final EventLoopGroup group;
    private final Channel server;
    private final long firstTokenDelayNanos;
    private final long interTokenDelayNanos;
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    private final List<String> prompts = new CopyOnWriteArrayList<>();

    private TimedSseServer(Duration firstTokenDelay, Duration interTokenDelay, int threads) throws IOException {
        this.firstTokenDelayNanos = firstTokenDelay.toNanos();
        this.interTokenDelayNanos = interTokenDelay.toNanos();
        this.group = new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory("timed-sse", true),
                NioIoHandler.newFactory());
        try {
            this.server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20),
                                    new Handler());
                        }
                    })
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IOException("interrupted while binding", e);
        }
    }

    public static TimedSseServer start(Duration firstTokenDelay, Duration interTokenDelay) throws IOException {
        return new TimedSseServer(firstTokenDelay, interTokenDelay, 2);
    }

    public static TimedSseServer start(Duration firstTokenDelay, Duration interTokenDelay, int threads)
            throws IOException {
        return new TimedSseServer(firstTokenDelay, interTokenDelay, threads);
    }

    public int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + port() + "/v1";
    }

    public int requests() {
        return requests.get();
    }

    /** Each request's prompt (its last message's content), in arrival order. */
    public List<String> prompts() {
        return List.copyOf(prompts);
    }

    /** The most streams that were open at once. */
    public int maxInFlight() {
        return maxInFlight.get();
    }

    @Override
    public void close() {
        server.close().awaitUninterruptibly(2_000);
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5_000);
    }

    private static byte[] event(String data) {
        return ("data: " + data + "\n\n").getBytes(StandardCharsets.UTF_8);
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) throws IOException {
            requests.incrementAndGet();
            maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            JsonNode body = JSON.readTree(request.content().toString(StandardCharsets.UTF_8));
            JsonNode messages = body.path("messages");
            prompts.add(messages.path(messages.size() - 1).path("content").asText(""));
            int tokens = Math.max(1, body.path("max_tokens").asInt(1));
            DefaultHttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            head.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream");
            HttpUtil.setTransferEncodingChunked(head, true);
            ctx.write(head);
            write(ctx, ROLE, true);
            new Stream(ctx, tokens).schedule(firstTokenDelayNanos);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** One response's remaining chunks, driven by event-loop timers. */
    private final class Stream implements Runnable {
        private final ChannelHandlerContext ctx;
        private final int tokens;
        private int sent;
        private boolean done;

        Stream(ChannelHandlerContext ctx, int tokens) {
            this.ctx = ctx;
            this.tokens = tokens;
            ctx.channel().closeFuture().addListener(f -> end());
        }

        void schedule(long delayNanos) {
            if (delayNanos <= 0) {
                ctx.executor().execute(this);
            } else {
                ctx.executor().schedule(this, delayNanos, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public void run() {
            if (done || !ctx.channel().isActive()) {
                end();
                return;
            }
            write(ctx, TOKEN, true);
            if (++sent < tokens) {
                schedule(interTokenDelayNanos);
                return;
            }
            // out of the count before the last events: once the client has [DONE] it may send its next request,
            // which another event loop can take before this one would get back here
            end();
            ctx.write(new DefaultHttpContent(Unpooled.wrappedBuffer(FINISH)));
            ctx.write(new DefaultHttpContent(Unpooled.wrappedBuffer(event(Streams.usage(10, tokens)))));
            ctx.write(new DefaultHttpContent(Unpooled.wrappedBuffer(DONE)));
            ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        }

        private void end() {
            if (!done) {
                done = true;
                inFlight.decrementAndGet();
            }
        }
    }

    private static void write(ChannelHandlerContext ctx, byte[] bytes, boolean flush) {
        ByteBuf buf = Unpooled.wrappedBuffer(bytes);
        if (flush) {
            ctx.writeAndFlush(new DefaultHttpContent(buf));
        } else {
            ctx.write(new DefaultHttpContent(buf));
        }
    }
}

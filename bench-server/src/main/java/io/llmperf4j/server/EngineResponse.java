package io.llmperf4j.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;

import java.util.concurrent.RejectedExecutionException;

/**
 * One response of a {@link GenerationEngine}, written in its endpoint's wire format (the same {@link ResponseEncoder}s
 * as the simulator's) as the engine reports it: for a stream, the headers and opening events at
 * {@link #start}, one event per piece of text, each flushed at once, and the finish, usage and terminal events at
 * {@link #end}; otherwise one JSON response at the end. The engine calls from its own thread; every call hops to
 * the connection's event loop, in order, so the state here belongs to the event loop.
 */
final class EngineResponse implements GenerationSink, ActiveResponse {

    private enum State { WAITING, STARTED, DONE }

    private final ChannelHandlerContext ctx;
    private final CompletionRequest request;
    private final ResponseEncoder encoder;
    private final Runnable onCompleted;
    /** A non-streaming response's text so far. */
    private final StringBuilder text = new StringBuilder();
    private volatile boolean clientGone;
    private State state = State.WAITING;
    private int promptTokens;

    EngineResponse(ChannelHandlerContext ctx, CompletionRequest request, String requestId, String model,
                   Runnable onCompleted) {
        this.ctx = ctx;
        this.request = request;
        this.onCompleted = onCompleted;
        this.encoder = request.endpoint().anthropic() ? new AnthropicEncoder(requestId, model)
                : new ChunkEncoder(request.endpoint(), requestId, System.currentTimeMillis() / 1000, model);
    }

    @Override
    public void start(int promptTokens) {
        onEventLoop(() -> {
            if (state == State.WAITING) open(promptTokens);
        });
    }

    @Override
    public void text(String piece) {
        onEventLoop(() -> {
            if (state != State.STARTED || piece.isEmpty()) return;
            if (request.stream()) {
                ByteBuf event = ChunkEncoder.encode(ctx.alloc(), 192 + piece.length(),
                        g -> encoder.chunk(g, null, piece));
                ctx.writeAndFlush(new DefaultHttpContent(event), ctx.voidPromise());
            } else {
                text.append(piece);
            }
        });
    }

    @Override
    public void end(int completionTokens, boolean stopped) {
        onEventLoop(() -> {
            if (state == State.DONE) return;
            if (state == State.WAITING) open(0);
            ResponseEncoder.Usage usage = new ResponseEncoder.Usage(promptTokens, completionTokens, 0);
            if (request.stream()) {
                ByteBuf events = ChunkEncoder.encode(ctx.alloc(), 512,
                        g -> encoder.close(g, stopped, usage, request.includeUsage(), true));
                ctx.write(new DefaultHttpContent(events), ctx.voidPromise());
                ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT, ctx.voidPromise());
            } else {
                String content = text.toString();
                ByteBuf body = ChunkEncoder.encode(ctx.alloc(), 256 + content.length(),
                        g -> encoder.fullResponse(g, null, content, stopped, usage));
                ctx.writeAndFlush(OpenAiResponses.json(HttpResponseStatus.OK, body), ctx.voidPromise());
            }
            finished();
        });
    }

    @Override
    public void fail(String message, boolean badRequest) {
        onEventLoop(() -> {
            if (state == State.DONE) return;
            if (state == State.STARTED && request.stream()) { // the headers are out: an error event ends the stream
                ByteBuf event = ChunkEncoder.encode(ctx.alloc(), 256 + message.length(),
                        g -> encoder.errorEvent(g, message));
                ctx.write(new DefaultHttpContent(event), ctx.voidPromise());
                ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT, ctx.voidPromise());
            } else {
                HttpResponseStatus status = badRequest ? HttpResponseStatus.BAD_REQUEST
                        : HttpResponseStatus.INTERNAL_SERVER_ERROR;
                ctx.writeAndFlush(request.endpoint().error(ctx.alloc(), status, message, null), ctx.voidPromise());
            }
            finished();
        });
    }

    @Override
    public boolean cancelled() {
        return clientGone || !ctx.channel().isActive();
    }

    @Override
    public void abort() {
        clientGone = true;
        state = State.DONE;
    }

    /** The engine sets the pace; Netty buffers what a slow client has not read yet. */
    @Override
    public void onWritable() {
    }

    private void open(int promptTokens) {
        this.promptTokens = promptTokens;
        state = State.STARTED;
        if (!request.stream()) return;
        ResponseEncoder.Usage usage = new ResponseEncoder.Usage(promptTokens, 0, 0);
        ByteBuf events = ChunkEncoder.encode(ctx.alloc(), 512, g -> encoder.open(g, usage));
        ctx.write(OpenAiResponses.streamHeaders(), ctx.voidPromise());
        ctx.writeAndFlush(new DefaultHttpContent(events), ctx.voidPromise());
    }

    private void finished() {
        state = State.DONE;
        onCompleted.run();
    }

    private void onEventLoop(Runnable task) {
        if (ctx.executor().inEventLoop()) {
            task.run();
            return;
        }
        try {
            ctx.executor().execute(task);
        } catch (RejectedExecutionException shuttingDown) {
            clientGone = true; // the event loop is gone, and with it the connection
        }
    }
}

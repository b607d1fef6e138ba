package io.llmperf4j.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One admitted request, from queueing to its last byte: {@code QUEUED -> GENERATING -> DONE}.
 *
 * <p>Chunk k (0-based) is due at {@code firstContentDueNanos + k * chunkIntervalNanos}, where
 * {@code firstContentDueNanos = slotGrantedNanos + ttft + prefillPerPromptToken * promptTokens}. Due times are
 * absolute, so late wake-ups never accumulate into drift, and a chunk is never written before it is due.
 * Each wake-up writes every chunk already due (at most {@link #MAX_CHUNKS_PER_BATCH}) into one buffer and
 * flushes once. A non-streaming response is written whole when its last chunk is due.
 *
 * <p>Everything except {@link #onSlotGranted()} runs on the channel's event loop, so no field needs a lock.
 */
final class Generation implements SequenceSlots.Waiter {

    /** Bounds one event-loop task when many chunks are due at once (zero delays), so other streams get turns. */
    static final int MAX_CHUNKS_PER_BATCH = 256;

    private enum State { QUEUED, GENERATING, DONE }

    private final ChannelHandlerContext ctx;
    private final ServerContext server;
    private final CompletionRequest request;
    private final ChunkEncoder encoder;
    private final String requestId;
    private final long textSeed;
    private final int promptTokens;
    private final long arrivalNanos;
    private final int totalChunks;
    private final long chunkIntervalNanos;
    /** Tells the connection handler that this response ended normally, so it can serve the next request. */
    private final Runnable onCompleted;

    private State state = State.QUEUED;
    private long slotGrantedNanos = RequestTiming.NOT_REACHED;
    private long firstContentDueNanos = RequestTiming.NOT_REACHED;
    private long firstContentFlushedNanos = RequestTiming.NOT_REACHED;
    private long lastContentFlushedNanos = RequestTiming.NOT_REACHED;
    private int nextChunk;
    private int tokensSent;
    private long maxSendLagNanos;
    private ScheduledFuture<?> timer;
    private boolean awaitingWritability;

    Generation(ChannelHandlerContext ctx, ServerContext server, CompletionRequest request, String requestId,
               String model, int promptTokens, long arrivalNanos, Runnable onCompleted) {
        this.ctx = ctx;
        this.server = server;
        this.request = request;
        this.requestId = requestId;
        this.promptTokens = promptTokens;
        this.arrivalNanos = arrivalNanos;
        this.onCompleted = onCompleted;
        this.encoder = new ChunkEncoder(request.endpoint(), requestId, System.currentTimeMillis() / 1000, model);
        this.textSeed = TokenText.seedOf(request.promptText());
        int tokensPerChunk = server.config.tokensPerChunk();
        this.totalChunks = (int) ((request.maxTokens() + (long) tokensPerChunk - 1) / tokensPerChunk);
        this.chunkIntervalNanos = saturatedMultiply(server.config.interTokenDelay().toNanos(), tokensPerChunk);
    }

    /** Takes a slot or joins the queue. */
    void start() {
        if (server.slots.acquireOrWait(this)) slotGranted();
    }

    /** Called by {@link SequenceSlots} on the releasing thread: hop to our own event loop. */
    @Override
    public boolean onSlotGranted() {
        try {
            ctx.executor().execute(this::slotGranted);
            return true;
        } catch (RejectedExecutionException shuttingDown) {
            return false;
        }
    }

    private void slotGranted() {
        if (state != State.QUEUED) { // aborted while the grant was under way: hand the slot on
            server.slots.release();
            return;
        }
        state = State.GENERATING;
        slotGrantedNanos = System.nanoTime();
        long prefillNanos = saturatedMultiply(server.config.prefillPerPromptToken().toNanos(), promptTokens);
        firstContentDueNanos = saturatedAdd(slotGrantedNanos,
                saturatedAdd(server.config.timeToFirstToken().toNanos(), prefillNanos));
        // a non-streaming response is written once, when its last chunk is due
        nextChunk = request.stream() ? 0 : totalChunks - 1;
        scheduleNext();
    }

    /** The connection closed (client disconnect or shutdown): stop the timer and free the slot. */
    void abort() {
        switch (state) {
            case QUEUED:
                state = State.DONE;
                // when cancel() finds us gone, a grant is under way: slotGranted() will see DONE and hand it on
                server.slots.cancel(this);
                notifyListener(RequestTiming.Outcome.ABORTED);
                break;
            case GENERATING:
                state = State.DONE;
                if (timer != null) timer.cancel(false);
                timer = null;
                server.slots.release();
                notifyListener(RequestTiming.Outcome.ABORTED);
                break;
            case DONE:
                break;
        }
    }

    /** The channel can take more bytes again: catch up with every chunk that fell due meanwhile. */
    void onWritable() {
        if (state == State.GENERATING && awaitingWritability && ctx.channel().isWritable()) {
            awaitingWritability = false;
            tick();
        }
    }

    private void tick() {
        timer = null;
        if (state != State.GENERATING) return;
        if (!ctx.channel().isWritable()) { // the client reads slower than we generate: wait, as a server would
            awaitingWritability = true;
            return;
        }
        long nowNanos = System.nanoTime();
        if (nowNanos - dueNanos(nextChunk) < 0) { // never send early, even if woken early
            scheduleNext();
            return;
        }
        int lastDueChunk = Math.min(lastChunkDueAt(nowNanos), nextChunk + MAX_CHUNKS_PER_BATCH - 1);
        boolean complete = lastDueChunk == totalChunks - 1;
        if (request.stream()) {
            writeStreamBatch(nextChunk, lastDueChunk, complete);
        } else {
            writeFullResponse();
        }
        long flushedNanos = System.nanoTime();
        // the batch's first chunk waited longest
        maxSendLagNanos = Math.max(maxSendLagNanos, flushedNanos - dueNanos(nextChunk));
        if (firstContentFlushedNanos == RequestTiming.NOT_REACHED) firstContentFlushedNanos = flushedNanos;
        tokensSent = (int) Math.min(request.maxTokens(), (lastDueChunk + 1L) * server.config.tokensPerChunk());
        if (complete) {
            lastContentFlushedNanos = flushedNanos;
            complete();
        } else {
            nextChunk = lastDueChunk + 1;
            scheduleNext();
        }
    }

    private void scheduleNext() {
        long delayNanos = dueNanos(nextChunk) - System.nanoTime();
        if (delayNanos <= 0) {
            ctx.executor().execute(this::tick); // yield between batches instead of looping here
        } else {
            timer = ctx.executor().schedule(this::tick, delayNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void complete() {
        state = State.DONE;
        server.slots.release();
        notifyListener(RequestTiming.Outcome.COMPLETED);
        onCompleted.run();
    }

    /** Headers (before the first batch), then role + content chunks, then finish, usage and [DONE] at the end. */
    private void writeStreamBatch(int fromChunk, int toChunk, boolean complete) {
        ByteBuf buf = ChunkEncoder.encode(ctx.alloc(), 256 * (toChunk - fromChunk + 3), g -> {
            if (fromChunk == 0) encoder.role(g);
            StringBuilder text = new StringBuilder(16 * server.config.tokensPerChunk());
            for (int k = fromChunk; k <= toChunk; k++) {
                text.setLength(0);
                encoder.content(g, TokenText.append(text, textSeed, firstToken(k), endToken(k)).toString());
            }
            if (complete) {
                encoder.finish(g, ChunkEncoder.FINISH_LENGTH);
                if (request.includeUsage()) encoder.usage(g, promptTokens, request.maxTokens());
                ChunkEncoder.done(g);
            }
        });
        if (fromChunk == 0) ctx.write(streamHeaders(), ctx.voidPromise());
        ctx.write(new DefaultHttpContent(buf), ctx.voidPromise());
        if (complete) ctx.write(LastHttpContent.EMPTY_LAST_CONTENT, ctx.voidPromise());
        ctx.flush();
    }

    private void writeFullResponse() {
        String text = TokenText.text(textSeed, 0, request.maxTokens());
        ByteBuf buf = ChunkEncoder.encode(ctx.alloc(), 256 + text.length(), g -> encoder.fullResponse(g, text,
                ChunkEncoder.FINISH_LENGTH, promptTokens, request.maxTokens()));
        ctx.writeAndFlush(OpenAiResponses.json(HttpResponseStatus.OK, buf), ctx.voidPromise());
    }

    private static HttpResponse streamHeaders() {
        HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8")
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
        HttpUtil.setTransferEncodingChunked(response, true);
        return response;
    }

    private void notifyListener(RequestTiming.Outcome outcome) {
        RequestTimingListener listener = server.config.timingListener();
        if (listener == null) return;
        listener.onRequestFinished(new RequestTiming(requestId, request.stream(), arrivalNanos, slotGrantedNanos,
                firstContentDueNanos, firstContentFlushedNanos, lastContentFlushedNanos, promptTokens, tokensSent,
                maxSendLagNanos, outcome));
    }

    private int firstToken(int chunk) {
        return chunk * server.config.tokensPerChunk();
    }

    private int endToken(int chunk) {
        return (int) Math.min(request.maxTokens(), (chunk + 1L) * server.config.tokensPerChunk());
    }

    private long dueNanos(int chunk) {
        return saturatedAdd(firstContentDueNanos, saturatedMultiply(chunk, chunkIntervalNanos));
    }

    /** The highest chunk index due at {@code nowNanos} (assumes chunk {@code nextChunk} is due). */
    private int lastChunkDueAt(long nowNanos) {
        if (chunkIntervalNanos == 0) return totalChunks - 1;
        long sinceFirstNanos = nowNanos - firstContentDueNanos;
        return (int) Math.min(totalChunks - 1L, sinceFirstNanos / chunkIntervalNanos);
    }

    // Durations and token counts come from users: clamp instead of overflowing into the past.
    private static long saturatedMultiply(long a, long b) {
        long high = Math.multiplyHigh(a, b);
        long low = a * b;
        return (high == 0 && low >= 0) || (high == -1 && low < 0) ? low : Long.MAX_VALUE / 4;
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE / 4 : sum;
    }
}

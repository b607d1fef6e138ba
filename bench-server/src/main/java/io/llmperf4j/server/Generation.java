package io.llmperf4j.server;

import com.fasterxml.jackson.core.JsonGenerator;
import io.llmperf4j.servermetrics.vllm.VllmMetricsExposition;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;

import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One admitted request, from queueing to its last byte: {@code QUEUED -> GENERATING -> DONE}.
 *
 * <p>Chunk k (0-based) is due at {@code firstContentDueNanos + k * chunkIntervalNanos}, where
 * {@code firstContentDueNanos = t0 + ttft + prefillPerPromptToken * (promptTokens - cachedTokens)} (a {@link FaultKind#STALL} adds
 * the stall to the fault chunk and every later one). {@code t0} is the request's arrival when a slot was free for
 * it, else the moment it was granted one: prompt counting and request parsing happen inside the TTFT, as a
 * server's tokenization does, instead of being added to it. Due times are absolute, so late
 * wake-ups never accumulate into drift, and a chunk is never written before it is due. Each wake-up writes every
 * chunk already due (at most {@link #MAX_CHUNKS_PER_BATCH}) into one buffer and flushes once. A non-streaming
 * response is written whole when its last chunk is due.
 *
 * <p>The response holds {@code generatedTokens} tokens ({@code max_tokens}, or fewer after a simulated EOS, see
 * {@link EarlyStop}): the first {@code reasoningTokens} are reasoning (chat only), the rest content. Reasoning and
 * content each follow the text contract on their own: token 0 of each has no leading space.
 *
 * <p>Everything except {@link #onSlotGranted()} runs on the channel's event loop, so no field needs a lock.
 */
final class Generation implements SequenceSlots.Waiter, ActiveResponse {

    /** Bounds one event-loop task when many chunks are due at once (zero delays), so other streams get turns. */
    static final int MAX_CHUNKS_PER_BATCH = 256;
    private enum State { QUEUED, GENERATING, DONE }

    private final ChannelHandlerContext ctx;
    private final ServerContext server;
    /** The series of the model this request named ({@code model_name}). */
    private final VllmMetricsExposition.Model metrics;
    /** KV-cache tokens this request holds in the simulated pool (its prompt and what it generated so far). */
    private long kvTokensHeld;
    private final CompletionRequest request;
    private final ResponseEncoder encoder;
    private final String requestId;
    private final long textSeed;
    private final long reasoningSeed;
    private final int promptTokens;
    /** Chained hashes of the prompt's cacheable KV blocks. */
    private final long[] promptBlockHashes;
    /** The prefix cache of the model this request named. */
    private final PrefixCache prefixCache;
    /** Prompt tokens the prefix cache held when the slot was granted. */
    private int cachedTokens;
    private final long arrivalNanos;
    private final FaultKind fault;
    private final int tokensPerChunk;
    /** Tokens generated: max_tokens, or fewer when the simulated EOS came first. */
    private final int generatedTokens;
    private final boolean stopped;
    /** The leading share of generatedTokens that is reasoning. */
    private final int reasoningTokens;
    private final int totalChunks;
    /** The chunk a stream fault happens at: totalChunks / 2. */
    private final int faultChunk;
    private final long chunkIntervalNanos;
    private final long stallNanos;
    /** {@link FaultKind#OVERSIZED_EVENT}: the fault chunk's padding, bytes that are neither text nor tokens. */
    private final int paddingBytes;
    /** Tells the connection handler that this response ended normally, so it can serve the next request. */
    private final Runnable onCompleted;

    private State state = State.QUEUED;
    private long slotGrantedNanos = RequestTiming.NOT_REACHED;
    private long firstContentDueNanos = RequestTiming.NOT_REACHED;
    private long firstContentFlushedNanos = RequestTiming.NOT_REACHED;
    private long lastContentFlushedNanos = RequestTiming.NOT_REACHED;
    /** When the previous batch of content events left, for the server's inter-token latency. */
    private long previousFlushNanos = RequestTiming.NOT_REACHED;
    private int nextChunk;
    /** Per chunk, when its write began (only while someone listens for timings, and only when streaming). */
    private final long[] chunkSentNanos;
    private int chunksSent;
    private int tokensSent;
    private long maxSendLagNanos;
    private ScheduledFuture<?> timer;
    private boolean awaitingWritability;

    Generation(ChannelHandlerContext ctx, ServerContext server, CompletionRequest request, String requestId,
               String model, PromptBlocks prompt, long arrivalNanos, FaultKind fault, Runnable onCompleted) {
        this.ctx = ctx;
        this.server = server;
        this.metrics = server.metrics.model(model);
        this.prefixCache = server.prefixCache(model);
        this.request = request;
        this.requestId = requestId;
        // usage.prompt_tokens counts the image tokens too, as vLLM's does (the text's blocks alone are cacheable)
        this.promptTokens = prompt.promptTokens() + request.images().tokens();
        this.promptBlockHashes = prompt.blockHashes();
        this.arrivalNanos = arrivalNanos;
        this.fault = fault;
        this.onCompleted = onCompleted;
        long createdSeconds = System.currentTimeMillis() / 1000;
        this.encoder = request.endpoint().anthropic() ? new AnthropicEncoder(requestId, model)
                : new ChunkEncoder(request.endpoint(), requestId, createdSeconds, model);
        this.textSeed = TokenText.seedOf(request.promptText());
        this.reasoningSeed = Hashing.mix(textSeed, 0x7265_6173_6f6eL);
        SimulatorConfig config = server.config;
        this.tokensPerChunk = config.tokensPerChunk();
        int reasoning = request.endpoint() == Endpoint.CHAT ? config.reasoningTokens() : 0;
        int lowerBound = Math.max(request.minTokens(), reasoning + 1);
        this.generatedTokens = config.earlyStop().generatedTokens(textSeed, request.maxTokens(), lowerBound,
                request.ignoreEos());
        this.stopped = generatedTokens < request.maxTokens();
        this.reasoningTokens = Math.min(reasoning, generatedTokens);
        this.totalChunks = (int) ((generatedTokens + (long) tokensPerChunk - 1) / tokensPerChunk);
        this.faultChunk = totalChunks / 2;
        this.chunkIntervalNanos = saturatedMultiply(config.interTokenDelay().toNanos(), tokensPerChunk);
        this.stallNanos = fault == FaultKind.STALL ? config.faultPlan().stallDuration().toNanos() : 0;
        this.chunkSentNanos = config.timingListener() != null && request.stream() ? new long[totalChunks]
                : new long[0];
        this.paddingBytes = fault == FaultKind.OVERSIZED_EVENT ? config.faultPlan().oversizedEventBytes() : 0;
    }

    /** Takes a slot or joins the queue. */
    void start() {
        if (server.slots.acquireOrWait(this)) {
            slotGranted(false);
        } else {
            metrics.addRequestsWaiting(1);
        }
    }

    /** Called by {@link SequenceSlots} on the releasing thread: hop to our own event loop. */
    @Override
    public boolean onSlotGranted() {
        try {
            ctx.executor().execute(() -> slotGranted(true));
            return true;
        } catch (RejectedExecutionException shuttingDown) {
            return false;
        }
    }

    /** @param queued whether the request waited for its slot: its TTFT then starts at the grant, not its arrival */
    private void slotGranted(boolean queued) {
        if (state != State.QUEUED) { // aborted while the grant was under way: hand the slot on
            server.slots.release();
            return;
        }
        state = State.GENERATING;
        slotGrantedNanos = System.nanoTime();
        if (queued) metrics.addRequestsWaiting(-1);
        // every scheduled request is observed, as vLLM's histogram does: one that found a slot waited 0 s (the queued
        // ones alone made the mean the queued requests' wait, not the run's)
        metrics.observeRequestQueueTimeSeconds(queued ? (slotGrantedNanos - arrivalNanos) / 1e9 : 0);
        metrics.addRequestsRunning(1);
        metrics.addPromptTokens(promptTokens);
        holdKv(promptTokens);
        long clockStartNanos = queued ? slotGrantedNanos : arrivalNanos;
        // the prefix cache is consulted when prefill starts; only the uncached tokens cost prefill time
        cachedTokens = prefixCache.lookupAndInsert(promptBlockHashes) * server.config.prefixBlockTokens();
        if (prefixCache.enabled()) metrics.addPrefixCacheLookup(promptTokens, cachedTokens);
        long prefillNanos = saturatedAdd(saturatedMultiply(server.config.prefillPerPromptToken().toNanos(),
                promptTokens - cachedTokens),
                saturatedMultiply(server.config.prefillPerImageToken().toNanos(), request.images().tokens()));
        firstContentDueNanos = saturatedAdd(clockStartNanos,
                saturatedAdd(server.config.timeToFirstToken().toNanos(), prefillNanos));
        // a non-streaming response is written once, when its last chunk is due; an error event at the first's
        nextChunk = request.stream() || fault == FaultKind.ERROR_EVENT ? 0 : totalChunks - 1;
        scheduleNext();
    }

    /** The connection closed (client disconnect or shutdown): stop the timer and free the slot. */
    @Override
    public void abort() {
        switch (state) {
            case QUEUED:
                state = State.DONE;
                // when cancel() finds us gone, a grant is under way: slotGranted() will see DONE and hand it on
                server.slots.cancel(this);
                metrics.addRequestsWaiting(-1);
                metrics.addRequestFinished("abort");
                notifyListener(RequestTiming.Outcome.ABORTED);
                break;
            case GENERATING:
                state = State.DONE;
                if (timer != null) timer.cancel(false);
                timer = null;
                server.slots.release();
                releaseKv();
                metrics.addRequestsRunning(-1);
                metrics.addRequestFinished("abort");
                notifyListener(RequestTiming.Outcome.ABORTED);
                break;
            case DONE:
                break;
        }
    }

    /** The channel can take more bytes again: catch up with every chunk that fell due meanwhile. */
    @Override
    public void onWritable() {
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
        if (fault == FaultKind.ERROR_EVENT) {
            writeErrorResponse();
            complete();
            return;
        }
        if (!request.stream()) {
            writeWholeResponse();
            return;
        }
        int lastDueChunk = Math.min(lastChunkDueAt(nowNanos), nextChunk + MAX_CHUNKS_PER_BATCH - 1);
        if (stallNanos > 0 && nextChunk < faultChunk) lastDueChunk = Math.min(lastDueChunk, faultChunk - 1);
        boolean drop = fault == FaultKind.DROP_MID_STREAM && lastDueChunk >= faultChunk;
        if (drop) lastDueChunk = faultChunk;
        boolean complete = !drop && lastDueChunk == totalChunks - 1;
        writeStreamBatch(nextChunk, lastDueChunk, complete);
        long flushedNanos = System.nanoTime();
        recordFlush(flushedNanos, lastDueChunk);
        if (drop) {
            drop();
        } else if (complete) {
            lastContentFlushedNanos = flushedNanos;
            complete();
        } else {
            nextChunk = lastDueChunk + 1;
            scheduleNext();
        }
    }

    private void recordFlush(long flushedNanos, int lastSentChunk) {
        // the batch's first chunk waited longest
        maxSendLagNanos = Math.max(maxSendLagNanos, flushedNanos - dueNanos(nextChunk));
        if (firstContentFlushedNanos == RequestTiming.NOT_REACHED) {
            firstContentFlushedNanos = flushedNanos;
            metrics.observeTimeToFirstTokenSeconds((flushedNanos - arrivalNanos) / 1e9);
        } else {
            metrics.observeInterTokenLatencySeconds((flushedNanos - previousFlushNanos) / 1e9);
        }
        // one observation per content event, as vLLM's per step: events flushed together are 0 s apart
        for (int k = nextChunk + 1; k <= lastSentChunk; k++) metrics.observeInterTokenLatencySeconds(0);
        previousFlushNanos = flushedNanos;
        int sentBefore = tokensSent;
        tokensSent = endToken(lastSentChunk);
        metrics.addGenerationTokens(tokensSent - sentBefore);
        holdKv(tokensSent - sentBefore);
    }

    private void holdKv(long tokens) {
        kvTokensHeld += tokens;
        server.kvTokens(tokens);
    }

    private void releaseKv() {
        server.kvTokens(-kvTokensHeld);
        kvTokensHeld = 0;
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
        releaseKv();
        metrics.addRequestsRunning(-1);
        metrics.observeE2eRequestLatencySeconds((System.nanoTime() - arrivalNanos) / 1e9);
        metrics.addRequestFinished(stopped ? "stop" : "length");
        notifyListener(RequestTiming.Outcome.COMPLETED);
        onCompleted.run();
    }

    /**
     * {@link FaultKind#DROP_MID_STREAM}: free the slot and close the connection (a FIN) without ending the response,
     * once every byte already written has left (an empty buffer passes the HTTP encoder untouched).
     */
    private void drop() {
        state = State.DONE;
        server.slots.release();
        releaseKv();
        metrics.addRequestsRunning(-1);
        metrics.addRequestFinished("abort");
        notifyListener(RequestTiming.Outcome.ABORTED);
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }

    /** Headers (before the first batch), then the opening and content events, then the closing events at the end. */
    private void writeStreamBatch(int fromChunk, int toChunk, boolean complete) {
        boolean padded = paddingBytes > 0 && fromChunk <= faultChunk && faultChunk <= toChunk;
        int capacity = 256 * (toChunk - fromChunk + 3) + (padded ? paddingBytes + 32 : 0);
        ByteBuf buf = ChunkEncoder.encode(ctx.alloc(), capacity, g -> {
            if (fromChunk == 0) encoder.open(g, usage());
            StringBuilder text = new StringBuilder(16 * tokensPerChunk);
            for (int k = fromChunk; k <= toChunk; k++) {
                if (k == faultChunk && fault == FaultKind.MALFORMED_EVENT) encoder.malformedEvent(g);
                writeChunk(g, k, text);
            }
            if (complete) {
                encoder.close(g, stopped, usage(), request.includeUsage(), fault != FaultKind.MISSING_DONE);
            }
        });
        if (fromChunk == 0) ctx.write(OpenAiResponses.streamHeaders(), ctx.voidPromise());
        ctx.write(new DefaultHttpContent(buf), ctx.voidPromise());
        if (complete) ctx.write(LastHttpContent.EMPTY_LAST_CONTENT, ctx.voidPromise());
        if (chunkSentNanos.length > 0) {
            long sendNanos = System.nanoTime(); // encoded and queued: the one flush below sends the whole batch
            for (int k = fromChunk; k <= toChunk; k++) chunkSentNanos[k] = sendNanos;
            chunksSent = toChunk + 1;
        }
        ctx.flush();
    }

    /** Chunk k: its reasoning part (tokens below reasoningTokens) and its content part, either may be absent. */
    private void writeChunk(JsonGenerator g, int k, StringBuilder text) throws IOException {
        int from = k * tokensPerChunk;
        int to = endToken(k);
        String reasoning = null;
        if (from < reasoningTokens) {
            text.setLength(0);
            reasoning = TokenText.append(text, reasoningSeed, from, Math.min(to, reasoningTokens)).toString();
        }
        String content = null;
        if (to > reasoningTokens) {
            text.setLength(0);
            content = TokenText.append(text, textSeed, Math.max(from, reasoningTokens) - reasoningTokens,
                    to - reasoningTokens).toString();
        }
        encoder.chunk(g, reasoning, content, k == faultChunk ? paddingBytes : 0);
    }

    /** The stream that fails before any content: the error event (and [DONE] for OpenAI), then a clean end. */
    private void writeErrorResponse() {
        if (request.stream()) {
            ByteBuf buf = ChunkEncoder.encode(ctx.alloc(), 256, encoder::errorEvent);
            ctx.write(OpenAiResponses.streamHeaders(), ctx.voidPromise());
            ctx.write(new DefaultHttpContent(buf), ctx.voidPromise());
            ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT, ctx.voidPromise());
        } else {
            ByteBuf buf = ChunkEncoder.encode(ctx.alloc(), 256, encoder::errorBody);
            ctx.writeAndFlush(OpenAiResponses.json(HttpResponseStatus.OK, buf), ctx.voidPromise());
        }
    }

    /** A non-streaming response, when its last chunk is due; dropped or cut short by those faults. */
    private void writeWholeResponse() {
        if (fault == FaultKind.DROP_MID_STREAM) {
            drop();
            return;
        }
        String reasoning = reasoningTokens > 0 ? TokenText.text(reasoningSeed, 0, reasoningTokens) : null;
        String content = generatedTokens > reasoningTokens
                ? TokenText.text(textSeed, 0, generatedTokens - reasoningTokens) : null;
        int length = (reasoning == null ? 0 : reasoning.length()) + (content == null ? 0 : content.length())
                + paddingBytes;
        String finalReasoning = reasoning;
        String finalContent = content;
        ByteBuf buf = ChunkEncoder.encode(ctx.alloc(), 256 + length,
                g -> encoder.fullResponse(g, finalReasoning, finalContent, stopped, usage(), paddingBytes));
        if (fault == FaultKind.MALFORMED_EVENT) buf.writerIndex(buf.readerIndex() + buf.readableBytes() / 2);
        ctx.writeAndFlush(OpenAiResponses.json(HttpResponseStatus.OK, buf), ctx.voidPromise());
        long flushedNanos = System.nanoTime();
        recordFlush(flushedNanos, totalChunks - 1);
        lastContentFlushedNanos = flushedNanos;
        complete();
    }

    private ResponseEncoder.Usage usage() {
        return new ResponseEncoder.Usage(promptTokens, generatedTokens, reasoningTokens, cachedTokens);
    }

    private void notifyListener(RequestTiming.Outcome outcome) {
        RequestTimingListener listener = server.config.timingListener();
        if (listener == null) return;
        listener.onRequestFinished(new RequestTiming(requestId, request.stream(), arrivalNanos, slotGrantedNanos,
                firstContentDueNanos, firstContentFlushedNanos, lastContentFlushedNanos, promptTokens, tokensSent,
                maxSendLagNanos, outcome, fault, Arrays.copyOf(chunkSentNanos, chunksSent)));
    }

    private int endToken(int chunk) {
        return (int) Math.min(generatedTokens, (chunk + 1L) * tokensPerChunk);
    }

    private long dueNanos(int chunk) {
        long due = saturatedAdd(firstContentDueNanos, saturatedMultiply(chunk, chunkIntervalNanos));
        return chunk >= faultChunk && stallNanos > 0 ? saturatedAdd(due, stallNanos) : due;
    }

    /** The highest chunk index due at {@code nowNanos} (assumes chunk {@code nextChunk} is due). */
    private int lastChunkDueAt(long nowNanos) {
        if (chunkIntervalNanos == 0) return totalChunks - 1;
        long sinceFirstNanos = nowNanos - firstContentDueNanos;
        if (stallNanos > 0 && nextChunk >= faultChunk) sinceFirstNanos -= stallNanos;
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

package io.llmperf4j.engine.client.impl;

import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.engine.sse.SseDecoder;
import io.llmperf4j.engine.sse.SseEvent;
import io.llmperf4j.engine.sse.SseEventSink;
import io.llmperf4j.engine.sse.TooLongSseEventException;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestPhases;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.RetryAfter;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One request/response exchange over a pooled connection: the I/O side of a request.
 *
 * <p>State machine ({@link State}): {@code PENDING → SENT → STREAMING | JSON_BODY | ERROR_BODY → DONE}, or
 * {@code FAILED} from anywhere. Every end goes through {@link #end}: it runs once, stops the idle timer, unbinds from
 * the connection, releases the connection to the pool (only after a complete response that allows keep-alive) or
 * closes it, and hands the outcome to the worker, which builds the record. The request timeout, when set, is armed in
 * {@link #start} (it covers the wait for a connection too) and cancelled when the record completes.
 *
 * <p>The end of a stream is its API's end event ({@link io.llmperf4j.engine.client.LlmApi#isEndOfStream}, OpenAI's
 * {@code data: [DONE]}), not the end of the HTTP body: the record ends at that event's arrival stamp, whatever comes
 * after it. Events after it are not read; a reset, a close, a timeout, a cancel or bad framing after it cannot fail
 * the answer, which is complete. When the read that brought the event did not also bring the body's end, the
 * exchange ends right after that read (the request is over: its record, its {@link #whenEnded} action) when its
 * connection could not carry another response anyway, and otherwise {@link #BODY_END_GLANCE_NANOS} later unless the
 * body ends first (a server's terminator in the next segment: the connection is then reused as usual). Its connection
 * is closed when it could not carry another response (the pool keeps none, the response said
 * {@code Connection: close}, or its body ends with the close), else it reads the rest of the body in the background
 * ({@link ConnectionHandler#drain}) for up to {@link #END_OF_BODY_GRACE_NANOS} (or the idle timeout, if shorter) and
 * goes back to the pool if the body ended, closed if not. No request gets it while it drains, and it holds no place
 * in the pool's limit meanwhile: the pool hands out another idle connection or opens one.
 *
 * <p>Retries: a request moves to another connection only when it provably never reached the server whole; the rule
 * is {@link ConnectionRetry}'s, the move ({@link #moveToAnotherConnection}) is the exchange's.
 *
 * <p>Threading: before a connection is attached, the exchange can end on any thread (cancel, connect failure), under
 * its lock. Once attached, all I/O state is confined to the channel's event loop; {@link #cancel()} from elsewhere is
 * forwarded there. Events go to the {@link RecordAssembler} on the event loop as they are decoded; the connection, the
 * phases and the end go through a per-request {@link SerialExecutor} on a worker, so the record completes off the
 * I/O threads, after every event (the end is handed over once the last one is in).
 */
public final class Exchange implements RequestHandle, SseEventSink {

    private enum State {
        /** Waiting for a connection (pool queue, connect, TLS handshake). */
        PENDING,
        /** Request being written or written; waiting for the response head. */
        SENT,
        /**
         * 200 with an event stream: bytes go through the SSE decoder. Also a 200 of another type than JSON (or of
         * none), in case it is SSE all the same; one that ends without a single event is reported as not a stream.
         */
        STREAMING,
        /** 200 with a JSON body instead of a stream: collected for the error it probably holds. */
        JSON_BODY,
        /** Non-200: the body is collected (capped) for the failure message. */
        ERROR_BODY,
        /** The response was complete. */
        DONE,
        /** The exchange ended early; the connection was closed. */
        FAILED
    }

    /** Non-200 bodies are kept up to this size for the failure message; the rest is read and dropped. */
    public static final int ERROR_BODY_CAP_BYTES = 64 * 1024;
    /** A 200 of another type than an event stream: this much of it is kept for the message until an event arrives. */
    static final int UNTYPED_EXCERPT_BYTES = 1024;
    /**
     * The same for a JSON type ({@code application/problem+json}, RFC 9457): whole up to this size, so its title and
     * detail can be read (a problem with a long {@code errors} list or trace would be cut at the excerpt's size).
     */
    static final int UNTYPED_JSON_BYTES = ERROR_BODY_CAP_BYTES;
    /**
     * How long a connection drains the rest of a body after its stream's end event, for keep-alive's sake only (the
     * request is over at the event). More than a delayed ACK (at most 200 ms), which a server's Nagle delay of its
     * chunked terminator can wait for.
     */
    public static final long END_OF_BODY_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /**
     * How long a reusable connection's body end is looked for after the read that brought the end event, before the
     * request ends without it. Servers commonly write the terminating chunk right after the last event, in a segment
     * of its own that arrives microseconds later: ending at once would leave that connection draining and make the
     * next request open another one. A gateway's terminator that comes later costs the next request at most this.
     */
    static final long BODY_END_GLANCE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    private static final String X_REQUEST_ID = "X-Request-Id";
    /** Marks {@link #endAction} once the exchange has ended. */
    private static final Object ENDED = new Object();

    private final ExchangeContext context;
    private final String clientRequestId;
    /** The request's bytes, written whole (a retained duplicate per write), released at the end. */
    private final ByteBuf request;
    private final SerialExecutor worker;
    private final RecordAssembler assembler;
    private final CompletableFuture<RequestRecord> completion = new CompletableFuture<>();
    /** Null, the {@link #whenEnded} action, or {@link #ENDED} once it ran (or the exchange ended without one). */
    private final AtomicReference<Object> endAction = new AtomicReference<>();
    /** The request's clock origin, set by {@link #start}; volatile as cancel() may read it from any thread. */
    private volatile long startNanos;

    // Guarded by `this`: written before attach from any thread, after attach on the event loop only.
    private Channel channel;
    private boolean terminal;

    // Event-loop confined once attached.
    private State state = State.PENDING;
    private ConnectionHandler handler;
    private SseDecoder decoder;
    private int status;
    /** The Retry-After header of an error response (429, 503), kept in the failure message. */
    private String retryAfter;
    /** The Location header of a redirect (3xx), named in the failure message. */
    private String location;
    /** A Content-Encoding the decompressor before this handler left in place: one the client cannot decode. */
    private String undecodedEncoding;
    private boolean keepAlive;
    /** The API's end event arrived (at {@link #doneNanos}): the answer is complete; only the body's end may follow. */
    private boolean doneSeen;
    private long doneNanos;
    /** The body ends by its framing (chunked or a length), not by the close: a keep-alive connection can outlive it. */
    private boolean bodyDelimited;
    /** The Content-Length of a body that is not chunked, -1 without one: a close before it is reached cut the body. */
    private long contentLength = -1;
    /** The body's bytes received so far, as the wire carried them (before any decompression removed the length). */
    private long bodyBytes;
    /**
     * A stream whose body ended inside an event (a line or an event unfinished), by the close or by its framing (the
     * last chunk, the whole length): the server may have cut it. {@link #eventsBeforeTail}: the events decoded before
     * that unfinished rest, which the decoder then hands over as an event of its own, if it makes one.
     */
    private boolean endedInsideEvent;
    private int eventsBeforeTail;
    /** Armed after the read that brought the end event on a reusable connection; see {@link #onReadComplete}. */
    private ScheduledFuture<?> bodyEndGlance;
    private String contentType;
    /** A 200 streamed though its Content-Type is not text/event-stream (or absent): it may not be a stream. */
    private boolean untypedStream;
    /** How much of an untyped stream is kept until its first event, for the message if none comes. */
    private int untypedKeepBytes;
    /** The response's X-Request-Id header: the server's id for the record when the body names none. */
    private String responseRequestId;
    private ByteArrayOutputStream body;
    private long attachNanos;
    private ScheduledFuture<?> idleCheck;
    private volatile int eventsDecoded;
    /** The response's status and headers came (a progress probe, as {@link #eventsDecoded}). */
    private volatile boolean headersReceived;
    /** The current attempt on a connection, and whether a failed one may move to another connection. */
    private final ConnectionRetry retry;
    /**
     * When the pool last gave this exchange a connection or a slot to open one ({@link #granted}): before it, the
     * request waited for a busy connection (every one open held by other requests); after it, the connect and the
     * write are its own.
     */
    private volatile long grantedNanos = RequestRecord.NEVER;
    /** The connect (TCP and TLS) of the connection this attempt opened; 0 on a pooled connection. */
    private long attemptConnectNanos;
    /** {@link #clientDelayNanos}, set once the request is written. */
    private volatile long clientDelayNanos;
    /** Where the time before the content went: stamped on the event loop as each moment happens. */
    private final PhaseStamps phases = new PhaseStamps();

    /** A request ready to go; nothing happens until {@link #start}, which also takes its start stamp. */
    public Exchange(ExchangeContext context, RequestSpec spec, String clientRequestId, ByteBuf request) {
        this.context = context;
        this.clientRequestId = clientRequestId;
        this.request = request;
        this.worker = new SerialExecutor(context.workers());
        this.retry = new ConnectionRetry(context.hostAndPort());
        this.assembler = new RecordAssembler(spec, clientRequestId, context.parser(), context.api().streaming(),
                context.redactor(), this::abortAfterStreamError, completion);
    }

    /** Gives back the request's bytes of an exchange that will never start (a prepared request not sent). */
    public void discard() {
        ReferenceCountUtil.release(request);
    }

    /**
     * Starts the request's clock at {@code startNanos} ({@link System#nanoTime()}, wall clock
     * {@code startEpochMicros}): every offset of its record counts from there. Then asks the pool for a connection,
     * then arms the request timeout, if any (a request that ends before the timer is
     * armed cancels it at once). The timer runs on an event loop from the start, not on the channel's, because the
     * request may time out before it has a channel.
     */
    public void start(long startNanos, long startEpochMicros) {
        this.startNanos = startNanos;
        assembler.begin(startNanos, startEpochMicros); // before any event can reach the worker
        context.pool().acquire(this); // first: the request's way to the socket is not delayed by the timer
        long limitNanos = context.requestTimeoutNanos();
        if (limitNanos > 0) {
            try {
                ScheduledFuture<?> timer = context.timers().schedule(this::onRequestTimeout, limitNanos,
                        TimeUnit.NANOSECONDS);
                completion.whenComplete((record, never) -> timer.cancel(false)); // no dead timers pile up
            } catch (RejectedExecutionException e) {
                // the client is closing: close() cancels what is in flight
            }
        }
    }

    // ---- RequestHandle -------------------------------------------------------------------------------------------

    @Override
    public String clientRequestId() {
        return clientRequestId;
    }

    @Override
    public long startNanos() {
        return startNanos;
    }

    /**
     * The time from the pool's grant ({@link #granted}) to the request's last byte in the socket, less the connect of
     * a connection opened for it: the client's own delay (a hand-off to a busy or cold event loop, the write); 0
     * before the write.
     */
    @Override
    public long clientDelayNanos() {
        return clientDelayNanos;
    }

    /** The pool gives this exchange a connection, or a slot to open one, now (any thread). */
    void granted(long nowNanos) {
        grantedNanos = nowNanos;
    }

    @Override
    public CompletableFuture<RequestRecord> completion() {
        return completion.copy();
    }

    /** The future the assembler completes (for the client's own bookkeeping). */
    public CompletableFuture<RequestRecord> completionInternal() {
        return completion;
    }

    @Override
    public void whenEnded(Runnable action) {
        Objects.requireNonNull(action, "action");
        if (endAction.compareAndSet(null, action)) return;
        if (endAction.get() != ENDED) throw new IllegalStateException("the request has an end action already");
        action.run(); // ended already
    }

    /** Runs the {@link #whenEnded} action, if one is set, and marks the exchange ended for a later one. */
    private void runEndAction() {
        Object action = endAction.getAndSet(ENDED);
        if (action instanceof Runnable r) r.run();
    }

    @Override
    public void cancel() {
        endFromAnyThread(new Failure(FailureKind.CANCELLED, -1, "cancelled while in flight"));
    }

    @Override
    public int eventsDecoded() {
        return eventsDecoded;
    }

    @Override
    public boolean headersReceived() {
        return headersReceived;
    }

    private synchronized Channel currentChannel() {
        return channel;
    }

    synchronized boolean isTerminal() {
        return terminal;
    }

    // ---- ending from any thread ----------------------------------------------------------------------------------

    /**
     * The pool opened a new connection for this exchange in {@code connectNanos} (TCP and TLS, of which
     * {@code tlsNanos} the handshake, -1 for plain TCP); called on the
     * connection's event loop just before {@link #attach}. Goes through the worker, so the record sees it.
     */
    void connected(long connectNanos, long tlsNanos) {
        phases.tlsHandshake(tlsNanos);
        attemptConnectNanos = Math.max(0, connectNanos);
        worker.execute(() -> assembler.onConnected(connectNanos));
    }

    /** Connection could not be established (called by the pool). */
    void connectFailed(String message) {
        endFromAnyThread(new Failure(FailureKind.CONNECT_FAILED, -1, message));
    }

    /** Ends with {@code failure} now: directly when no connection is attached, on the event loop otherwise. */
    void endFromAnyThread(Failure failure) {
        long nowNanos = System.nanoTime();
        Channel ch;
        synchronized (this) {
            if (terminal) return;
            ch = channel;
            if (ch == null) terminal = true;
        }
        if (ch == null) {
            ReferenceCountUtil.release(request); // never written
            RequestPhases timing = phases.toPhases(startNanos); // a connection that was never handed over: TLS at most
            runEndAction(); // before the record can complete: the end action goes first, as documented
            worker.execute(() -> assembler.onPhases(timing));
            worker.execute(() -> assembler.finish(nowNanos, failure));
        } else {
            onLoop(ch, () -> failOn(ch, failure));
        }
    }

    /**
     * On {@code ch}'s loop: fails if the exchange is still on {@code ch}, else re-routes (it moved by a retry). The end
     * is stamped here, not when the caller asked: what the loop read before it got to this (a response head, events)
     * is in the record, so the record's end must not precede their stamps (a CANCELLED record's response_headers
     * after its E2E, seen when the loop was busy).
     */
    private void failOn(Channel ch, Failure failure) {
        Channel current;
        synchronized (this) {
            if (terminal) return;
            current = channel;
        }
        if (current == ch) {
            fail(System.nanoTime(), failure);
        } else {
            endFromAnyThread(failure);
        }
    }

    /** From the timer on some event loop: ends the request where it is, on its channel's loop when it has one. */
    private void onRequestTimeout() {
        long limitMillis = TimeUnit.NANOSECONDS.toMillis(context.requestTimeoutNanos());
        Channel ch = currentChannel();
        if (ch == null) {
            endFromAnyThread(new Failure(FailureKind.REQUEST_TIMEOUT, -1, FailureMessages.requestTimeout(limitMillis,
                    "while waiting for a connection to " + context.hostAndPort())));
            return;
        }
        onLoop(ch, () -> {
            if (currentChannel() != ch) {
                onRequestTimeout(); // moved to another connection meanwhile: end it where it is now
                return;
            }
            fail(System.nanoTime(), new Failure(FailureKind.REQUEST_TIMEOUT, -1, FailureMessages.requestTimeout(
                    limitMillis, during() + " (" + context.hostAndPort() + ")")));
        });
    }

    /** The worker saw an error object: stop reading; the assembler's stream error takes precedence in the record. */
    private void abortAfterStreamError() {
        endFromAnyThread(new Failure(FailureKind.ERROR_IN_STREAM, -1, "aborted after an error event"));
    }

    private static void onLoop(Channel ch, Runnable task) {
        if (ch.eventLoop().inEventLoop()) {
            task.run();
            return;
        }
        try {
            ch.eventLoop().execute(task);
        } catch (RejectedExecutionException e) {
            task.run(); // event loop already shut down: nothing else can touch the exchange now
        }
    }

    // ---- event loop ----------------------------------------------------------------------------------------------

    /**
     * Called by the pool on {@code ch}'s event loop when a connection is ready for this exchange.
     *
     * @param reused the connection served earlier requests (it may have been closed by the server while idle)
     */
    void attach(Channel ch, boolean reused) {
        boolean attached;
        synchronized (this) {
            attached = !terminal;
            if (attached) channel = ch;
        }
        if (!attached) {
            context.pool().release(ch, true); // cancelled while waiting; nothing was written, the connection is clean
            return;
        }
        ConnectionHandler connection = ch.pipeline().get(ConnectionHandler.class); // null once torn down
        retry.attempt(reused, reused && connection != null && connection.hasServed());
        state = State.SENT;
        if (reused) attemptConnectNanos = 0;
        attachNanos = System.nanoTime();
        phases.connectionReady(attachNanos);
        if (!ch.isActive() || connection == null) {
            // closed between leaving the pool and now (its pipeline may be torn down already): nothing was written,
            // so another connection may be safe
            handler = null;
            retryOrFail(attachNanos, retry.closedBeforeWrite());
            return;
        }
        handler = connection; // one pipeline lookup per request (this is the send path)
        handler.bind(this);
        decoder = new SseDecoder(context.maxEventBytes());
        long cpuBeforeWrite = WriteEndClock.cpuNow();
        long wallBeforeWrite = System.nanoTime();
        ChannelFuture write = ch.writeAndFlush(request.retainedDuplicate());
        // a write the socket took whole at once ended here, less any time this thread was then off the CPU (the woken
        // server run on this core first: WriteEndClock); one it finishes later ends when its listener runs
        boolean doneAtOnce = write.isDone();
        long writtenAtOnce = doneAtOnce ? WriteEndClock.ended(wallBeforeWrite, cpuBeforeWrite) : 0;
        retry.writing(write);
        if (state == State.SENT) { // the write's own failure may have ended or moved the exchange already
            // armed after the write, which it never has to guard: no timer work between attach and the socket
            idleCheck = ch.eventLoop().schedule(this::checkIdle, context.idleTimeoutNanos(), TimeUnit.NANOSECONDS);
        }
        write.addListener(f -> {
            if (f.isSuccess()) { // the last byte is in the socket
                written(doneAtOnce ? writtenAtOnce : System.nanoTime());
            }
            if (f.isSuccess() || currentChannel() != ch || state != State.SENT) {
                // moved by a retry; or a response has begun, and its own end or the close decides the record
                return;
            }
            retryOrFail(System.nanoTime(), retry.sendFailed(
                    FailureMessages.describe(FailureMessages.rootCause(f.cause()))));
        });
    }

    /** The request's last byte is in the socket at {@code nowNanos}: its phase, and the client's delay until then. */
    private void written(long nowNanos) {
        phases.requestWritten(nowNanos);
        long granted = grantedNanos;
        if (granted != RequestRecord.NEVER) clientDelayNanos = Math.max(0, nowNanos - granted - attemptConnectNanos);
    }

    /** The connection ended in SENT, before any response byte: retried or recorded, as {@link ConnectionRetry} says. */
    private void lostBeforeResponse(long nowNanos, String detail) {
        retryOrFail(nowNanos, retry.lostBeforeResponse(detail));
    }

    /** {@code failure} null: the request goes to another connection; else it is recorded. */
    private void retryOrFail(long nowNanos, Failure failure) {
        if (failure == null) {
            moveToAnotherConnection();
        } else {
            fail(nowNanos, failure);
        }
    }

    /** Back to PENDING and to the pool; the dead connection is closed. Nothing of the request reached the server. */
    private void moveToAnotherConnection() {
        Channel stale;
        synchronized (this) {
            if (terminal) return;
            stale = channel;
            channel = null; // PENDING again: cancel() and the request timeout now end the exchange directly
        }
        if (idleCheck != null) idleCheck.cancel(false);
        if (handler != null) handler.unbind(this);
        handler = null;
        state = State.PENDING;
        retry.abandon();
        context.pool().release(stale, false);
        context.pool().acquire(this);
    }

    void onHttpObject(HttpObject msg, long arrivalNanos) {
        if (state == State.DONE || state == State.FAILED) return; // late bytes of an ended exchange
        DecoderResult result = msg.decoderResult();
        if (result.isFailure()) {
            onDecoderFailure(result.cause(), arrivalNanos);
            return;
        }
        if (msg instanceof HttpResponse response) {
            onResponseHead(response, arrivalNanos);
        }
        if (msg instanceof HttpContent content && state != State.FAILED) {
            onContent(content, arrivalNanos);
        }
    }

    private void onResponseHead(HttpResponse response, long arrivalNanos) {
        if (state != State.SENT) {
            fail(arrivalNanos, new Failure(FailureKind.CLIENT_ERROR, -1,
                    "unexpected second response head from " + context.hostAndPort()));
            return;
        }
        phases.responseHeaders(arrivalNanos);
        headersReceived = true;
        status = response.status().code();
        keepAlive = HttpUtil.isKeepAlive(response);
        bodyDelimited = HttpUtil.isTransferEncodingChunked(response) || HttpUtil.isContentLengthSet(response);
        contentLength = HttpUtil.isTransferEncodingChunked(response) ? -1 : HttpUtil.getContentLength(response, -1L);
        contentType = response.headers().get(HttpHeaderNames.CONTENT_TYPE);
        responseRequestId = response.headers().get(X_REQUEST_ID);
        undecodedEncoding = undecodedEncoding(response);
        if (status == 200 && undecodedEncoding != null) {
            fail(arrivalNanos, new Failure(FailureKind.CLIENT_ERROR, -1,
                    FailureMessages.undecodedEncoding(context.hostAndPort(), status, undecodedEncoding)));
            return;
        }
        if (status != 200) {
            retryAfter = response.headers().get(HttpHeaderNames.RETRY_AFTER);
            if (status >= 300 && status < 400) location = response.headers().get(HttpHeaderNames.LOCATION);
            state = State.ERROR_BODY;
            body = new ByteArrayOutputStream();
        } else if (!context.api().streaming()
                || contentType != null && contentType.toLowerCase(Locale.ROOT).startsWith("application/json")) {
            state = State.JSON_BODY;
            body = new ByteArrayOutputStream();
        } else {
            // text/event-stream; or another type, or none: streamed all the same, in case it is SSE (lenient), and
            // reported as not a stream if it ends without one event (a proxy's login page, an HTML error page)
            state = State.STREAMING;
            untypedStream = contentType == null
                    || !contentType.strip().toLowerCase(Locale.ROOT).startsWith("text/event-stream");
            if (untypedStream) {
                body = new ByteArrayOutputStream();
                untypedKeepBytes = contentType != null && contentType.toLowerCase(Locale.ROOT).contains("json")
                        ? UNTYPED_JSON_BYTES : UNTYPED_EXCERPT_BYTES;
            }
        }
    }

    private void onContent(HttpContent content, long arrivalNanos) {
        ByteBuf bytes = content.content();
        boolean last = content instanceof LastHttpContent;
        bodyBytes += bytes.readableBytes();
        switch (state) {
            case STREAMING:
                if (doneSeen) break; // after the end event: dropped unread, only the body's end is awaited
                if (untypedStream && eventsDecoded == 0) keepExcerpt(bytes);
                try {
                    decoder.decode(bytes, arrivalNanos, this);
                    if (last) {
                        endedInsideEvent = decoder.hasPendingBytes();
                        eventsBeforeTail = eventsDecoded;
                        decoder.finish(arrivalNanos, this);
                    }
                } catch (TooLongSseEventException e) {
                    Failure notAStream = notAStream();
                    fail(arrivalNanos, notAStream != null ? notAStream
                            : new Failure(FailureKind.CLIENT_ERROR, -1, e.getMessage()));
                    return;
                }
                if (state == State.DONE || state == State.FAILED) return; // an error object ended the exchange
                break;
            case JSON_BODY:
                if (!context.api().streaming() && body.size() + bytes.readableBytes() > context.maxEventBytes()) {
                    // a whole response is the API's data, not an error excerpt: never parse a truncated one
                    fail(arrivalNanos, new Failure(FailureKind.CLIENT_ERROR, -1, "response body from "
                            + context.hostAndPort() + " larger than " + context.maxEventBytes() + " bytes"));
                    return;
                }
                appendCapped(bytes);
                break;
            case ERROR_BODY:
                appendCapped(bytes);
                break;
            default:
                fail(arrivalNanos, new Failure(FailureKind.CLIENT_ERROR, -1,
                        "unexpected response content from " + context.hostAndPort() + " " + during()));
                return;
        }
        if (last) onEndOfBody(endOfBodyNanos(arrivalNanos));
    }

    /**
     * When the body ended: at the read that brought its end, or, for a body that ends with the connection, when the
     * close was seen. The decoder hands that body's end over only at the close, with the last read's stamp, which
     * can be long before it (a server that closes late after its last event): E2E and TPOT run to the close.
     */
    private long endOfBodyNanos(long arrivalNanos) {
        long closedNanos = bodyDelimited || handler == null ? -1 : handler.clock().closedNanos();
        return closedNanos >= 0 ? closedNanos : arrivalNanos;
    }

    private void onEndOfBody(long arrivalNanos) {
        switch (state) {
            case STREAMING: {
                if (doneSeen) {
                    long endNanos = doneNanos;
                    end(State.DONE, keepAlive, () -> assembler.finish(endNanos, null));
                    break;
                }
                Failure notAStream = notAStream();
                if (notAStream != null) {
                    end(State.DONE, keepAlive, () -> assembler.finish(arrivalNanos, notAStream));
                } else {
                    endWithoutEndEvent(arrivalNanos);
                }
                break;
            }
            case ERROR_BODY: {
                Failure failure = httpStatusFailure();
                end(State.DONE, keepAlive, () -> assembler.finish(arrivalNanos, failure));
                break;
            }
            case JSON_BODY: {
                byte[] json = body.toByteArray();
                String type = contentType;
                end(State.DONE, keepAlive, () -> assembler.finishWithJsonBody(arrivalNanos, json, type));
                break;
            }
            default:
                throw new IllegalStateException("end of body in state " + state);
        }
    }

    /**
     * A stream whose body ended, by its framing (the last chunk, the whole length) or with the connection, without
     * its end event. Inside an event, a rest that made no event, or made a malformed one, was cut short by the server:
     * CONNECTION_CLOSED, never parsed as if whole (MALFORMED_EVENT). Between events (or after a rest that made a whole
     * event: a server that leaves out the last blank line), a finish reason makes it a success without the end marker;
     * without one it is MISSING_DONE when the framing ended the body (the response may be cut short), and
     * CONNECTION_CLOSED when the close did: the close is all the client saw, and a server that stopped is likelier than
     * an API that never ends its streams; the message says both.
     */
    private void endWithoutEndEvent(long arrivalNanos) {
        String host = context.hostAndPort();
        String endEvent = context.api().endOfStreamName();
        Failure cut = new Failure(FailureKind.CONNECTION_CLOSED, -1, bodyDelimited
                ? FailureMessages.bodyEndedMidEvent(host, eventsBeforeTail)
                : FailureMessages.closedMidStream(host, eventsBeforeTail, true));
        Failure unended = bodyDelimited
                ? new Failure(FailureKind.MISSING_DONE, -1, "the stream ended without " + endEvent + " after "
                        + eventsDecoded + " events and without a finish reason: the response may be cut short")
                : new Failure(FailureKind.CONNECTION_CLOSED, -1,
                        FailureMessages.closedWithoutEnd(host, eventsDecoded, endEvent));
        boolean reuse = bodyDelimited && keepAlive; // the framing ended the body: the connection can carry another
        boolean restMadeAnEvent = eventsDecoded > eventsBeforeTail;
        if (endedInsideEvent && !restMadeAnEvent) {
            end(State.DONE, reuse, () -> assembler.finish(arrivalNanos, cut));
        } else if (endedInsideEvent) {
            end(State.DONE, reuse, () -> assembler.finishAfterCutEvent(arrivalNanos, cut, unended));
        } else {
            end(State.DONE, reuse, () -> assembler.finishWithoutEndMarker(arrivalNanos, unended));
        }
    }

    void onInactive(long nowNanos) {
        switch (state) {
            case SENT:
                lostBeforeResponse(nowNanos, null);
                break;
            case STREAMING:
                Failure notAStream = notAStream();
                if (doneSeen) {
                    endAtDone(false); // the end event arrived, only the body's end is missing: the answer is complete
                } else if (notAStream != null) {
                    fail(nowNanos, notAStream); // a page that ended with the connection (no length, no chunking)
                } else if (decoder.hasPendingBytes()) {
                    // a chunked body before its last chunk, or one shorter than its length, cut inside an event
                    fail(nowNanos, new Failure(FailureKind.CONNECTION_CLOSED, -1, closedMidStream(true)));
                } else {
                    // cut between events: after a finish reason the answer is whole, as a close-delimited body's is
                    // judged (a success tagged for its missing end marker); before one, cut
                    Failure cut = new Failure(FailureKind.CONNECTION_CLOSED, -1, closedMidStream(false));
                    end(State.DONE, false, () -> assembler.finishWithoutEndMarker(nowNanos, cut));
                }
                break;
            case ERROR_BODY: {
                Failure failure = httpStatusFailure(); // the status is known; the body may be cut short
                end(State.FAILED, false, () -> assembler.finish(nowNanos, failure));
                break;
            }
            case JSON_BODY:
                fail(nowNanos, new Failure(FailureKind.CONNECTION_CLOSED, -1, shortOfLength()
                        ? FailureMessages.closedShortOfLength(context.hostAndPort(), bodyBytes, contentLength)
                        : "connection closed by " + context.hostAndPort() + " before the end of the response body"));
                break;
            default:
                break; // PENDING cannot see the channel; DONE/FAILED are over
        }
    }

    /** The connection closed before the body reached its Content-Length. */
    private boolean shortOfLength() {
        return contentLength >= 0 && bodyBytes < contentLength;
    }

    /**
     * A stream the close cut: how many of its Content-Length's bytes came, when it has one and fell short of it
     * ({@link FailureMessages#closedShortOfLength}), else its events ({@link FailureMessages#closedMidStream}).
     */
    private String closedMidStream(boolean insideEvent) {
        String host = context.hostAndPort();
        return shortOfLength() ? FailureMessages.closedShortOfLength(host, bodyBytes, contentLength, eventsDecoded,
                insideEvent) : FailureMessages.closedMidStream(host, eventsDecoded, insideEvent);
    }

    void onException(Throwable cause, long nowNanos) {
        if (state == State.DONE || state == State.FAILED) return;
        if (state != State.SENT && CompressedBodies.isDecodingFailure(cause)) {
            onUndecodableBody(cause, nowNanos);
            return;
        }
        if (FailureMessages.rootCause(cause) instanceof IOException || cause instanceof IOException) {
            String detail = FailureMessages.describe(FailureMessages.rootCause(cause));
            if (state == State.SENT) {
                lostBeforeResponse(nowNanos, detail);
            } else {
                fail(nowNanos, new Failure(FailureKind.CONNECTION_CLOSED, -1,
                        FailureMessages.connectionLost(context.hostAndPort(), during(), detail)));
            }
        } else {
            fail(nowNanos, new Failure(FailureKind.CLIENT_ERROR, -1, "unexpected error on the connection to "
                    + context.hostAndPort() + " " + during() + ": " + FailureMessages.describe(cause)));
        }
    }

    /**
     * The body is not in the coding its Content-Encoding names: the server's (or a gateway's) fault. A non-200 keeps
     * its status (its body is lost); a 200 is a malformed response, with the events so far kept.
     */
    private void onUndecodableBody(Throwable cause, long nowNanos) {
        String message = FailureMessages.undecodableBody(context.hostAndPort(), status,
                CompressedBodies.codingOf(channel), FailureMessages.describe(FailureMessages.rootCause(cause)));
        if (state == State.ERROR_BODY) {
            Failure failure = status >= 300 && status < 400 ? httpStatusFailure() // a redirect needs no body
                    : new Failure(FailureKind.HTTP_STATUS, status, message
                    + (retryAfter != null ? RetryAfter.note(retryAfter) : ""));
            end(State.FAILED, false, () -> assembler.finish(nowNanos, failure));
        } else {
            fail(nowNanos, new Failure(FailureKind.MALFORMED_EVENT, -1, message + " " + during()));
        }
    }

    private void onDecoderFailure(Throwable cause, long nowNanos) {
        if (cause instanceof PrematureChannelClosureException && state == State.SENT) {
            lostBeforeResponse(nowNanos, null);
        } else if (cause instanceof PrematureChannelClosureException) {
            fail(nowNanos, new Failure(FailureKind.CONNECTION_CLOSED, -1,
                    "connection closed by " + context.hostAndPort() + " " + during()));
        } else if (handler != null && channel != null && channel.pipeline().get(SslHandler.class) == null
                && FailureMessages.isTlsRecordType(handler.clock().firstByte())) {
            // a TLS record (an alert) in answer to plain HTTP: a TLS port, which the decoder's words would hide
            fail(nowNanos, new Failure(FailureKind.CLIENT_ERROR, -1, FailureMessages.tlsAnswer(context.hostAndPort())));
        } else {
            fail(nowNanos, new Failure(FailureKind.CLIENT_ERROR, -1, "invalid HTTP response from "
                    + context.hostAndPort() + ": " + FailureMessages.describe(cause)));
        }
    }

    private void checkIdle() {
        if (state == State.DONE || state == State.FAILED) return;
        long now = System.nanoTime();
        long idleNanos = now - Math.max(attachNanos, handler.clock().lastReadNanos());
        long limit = context.idleTimeoutNanos();
        if (idleNanos >= limit) {
            fail(now, new Failure(FailureKind.IDLE_TIMEOUT, -1, "no bytes from " + context.hostAndPort() + " for "
                    + TimeUnit.NANOSECONDS.toMillis(idleNanos) + " ms (idle timeout "
                    + TimeUnit.NANOSECONDS.toMillis(limit) + " ms) " + during()));
        } else {
            idleCheck = channel.eventLoop().schedule(this::checkIdle, limit - idleNanos, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * From the decoder, on the event loop: the end marker ([DONE]) is noted here, every other event is parsed into the
     * record here too, as it is decoded. Handing each read's events to a worker thread cost more than parsing them
     * (a queue, a wake-up, and a copy kept alive across threads, at the stream ceiling a third of the client's
     * allocation); arrival stamps are taken before any of this, per read, so parsing here delays no stamp.
     */
    @Override
    public void onEvent(String type, byte[] data, int from, int to, long arrivalNanos) {
        eventsDecoded++;
        if (doneSeen) return; // after the end event: not part of the answer
        if (context.api().isEndOfStream(type, data, from, to)) {
            doneSeen = true;
            doneNanos = arrivalNanos; // the end of the answer, whenever the body ends
            return;
        }
        if (state == State.DONE || state == State.FAILED) return; // ended by an earlier event of this read
        assembler.onEvent(type, data, from, to, arrivalNanos); // parsed at once: the decoder's bytes, lent
    }

    /**
     * The connection's read ended (every HTTP object it held has been handed over). The end event arrived and the body
     * did not end with it: the request is over now; the connection drains the rest, or is closed.
     */
    void onReadComplete() {
        if (!doneSeen || state != State.STREAMING || bodyEndGlance != null) return;
        if (!canCarryAnotherResponse()) {
            endAtDone(false); // nothing to wait for: the connection is closed now
            return;
        }
        bodyEndGlance = channel.eventLoop().schedule(() -> endAtDone(true),
                Math.min(BODY_END_GLANCE_NANOS, context.idleTimeoutNanos()), TimeUnit.NANOSECONDS);
    }

    /** The response lets its connection carry another one once its body ends, and the pool keeps connections. */
    private boolean canCarryAnotherResponse() {
        return keepAlive && bodyDelimited && handler != null && context.pool().keepsConnections();
    }

    /**
     * Ends a stream whose end event arrived, at that event's stamp, as a success, before its body ended. With
     * {@code mayDrain}, a connection that could carry another response drains the rest of the body in the
     * background; any other is closed now. Whatever ended it otherwise (a close, a reset, a timeout, a cancel, bad
     * framing) came after the answer, and closes the connection.
     */
    private void endAtDone(boolean mayDrain) {
        if (state != State.STREAMING) return;
        long endNanos = doneNanos;
        boolean drain = mayDrain && canCarryAnotherResponse();
        end(State.DONE, false, drain, () -> assembler.finish(endNanos, null));
    }

    /** From the decoder, on the event loop: a line it ignored, for the record to count (as events, until the end). */
    @Override
    public void onIgnoredLine(byte[] line, int from, int to) {
        if (doneSeen || state == State.DONE || state == State.FAILED) return;
        assembler.onIgnoredLine(line, from, to);
    }

    @Override
    public void onEvent(SseEvent event) {
        onEvent(event.type(), event.data(), 0, event.data().length, event.arrivalNanos());
    }

    private void fail(long nowNanos, Failure failure) {
        if (doneSeen && state == State.STREAMING) {
            endAtDone(false); // the answer was complete before this went wrong
            return;
        }
        end(State.FAILED, false, () -> assembler.finish(nowNanos, failure));
    }

    /** The single way out once attached: runs at most once. */
    private void end(State finalState, boolean reusable, Runnable finishOnWorker) {
        end(finalState, reusable, false, finishOnWorker);
    }

    /**
     * {@link #end}; with {@code drain}, the connection reads the rest of the body in the background and goes back to
     * the pool as reusable only if that body ends in time ({@link ConnectionHandler#drain}).
     */
    private void end(State finalState, boolean reusable, boolean drain, Runnable finishOnWorker) {
        synchronized (this) {
            if (terminal) return;
            terminal = true;
        }
        state = finalState;
        if (idleCheck != null) idleCheck.cancel(false);
        if (bodyEndGlance != null) bodyEndGlance.cancel(false);
        if (handler != null) {
            if (reusable && finalState == State.DONE) handler.served();
            handler.unbind(this);
        }
        body = null;
        ReferenceCountUtil.release(request); // each write sent a retained duplicate
        if (drain) {
            Channel ch = channel;
            ConnectionSource pool = context.pool();
            handler.drain(ch, Math.min(context.endOfBodyGraceNanos(), context.idleTimeoutNanos()),
                    () -> pool.drained(ch));
            pool.draining(ch);
        } else {
            context.pool().release(channel, reusable && finalState == State.DONE);
        }
        RequestPhases timing = phases.toPhases(startNanos);
        String headerId = responseRequestId;
        // before the record can complete (a closed loop's next request may go out from here, on this connection),
        // so the action never races the completion callbacks
        runEndAction();
        worker.execute(() -> {
            assembler.onPhases(timing);
            assembler.onResponseRequestId(headerId);
        });
        worker.execute(finishOnWorker);
    }

    /** What the exchange was doing, for a message: no state names, which mean nothing to a user. */
    private String during() {
        return switch (state) {
            case PENDING -> "while waiting for a connection";
            case SENT -> "while waiting for the response";
            case STREAMING -> "while streaming, after " + eventsDecoded + " event" + (eventsDecoded == 1 ? "" : "s");
            case JSON_BODY, ERROR_BODY -> "while reading the response body";
            case DONE, FAILED -> "after the response";
        };
    }

    /**
     * A 200 of another type than text/event-stream (or of none) that gave no event: not a stream, so a client error
     * naming the type, with the start of the body (instead of a missing [DONE] after 0 events). Null when it may
     * be a stream: it gave an event, or it had no type and no body.
     */
    private Failure notAStream() {
        if (!untypedStream || eventsDecoded > 0 || body == null) return null;
        if (contentType == null && body.size() == 0) return null;
        return new Failure(FailureKind.CLIENT_ERROR, -1,
                FailureMessages.notAnEventStream(contentType, body.toByteArray()));
    }

    private void keepExcerpt(ByteBuf bytes) {
        int take = Math.min(untypedKeepBytes - body.size(), bytes.readableBytes());
        if (take <= 0) return;
        byte[] chunk = new byte[take];
        bytes.getBytes(bytes.readerIndex(), chunk);
        body.write(chunk, 0, take);
    }

    private void appendCapped(ByteBuf bytes) {
        int cap = state == State.JSON_BODY && !context.api().streaming() ? context.maxEventBytes()
                : ERROR_BODY_CAP_BYTES;
        int room = cap - body.size();
        int take = Math.min(room, bytes.readableBytes());
        if (take > 0) {
            byte[] chunk = new byte[take];
            bytes.getBytes(bytes.readerIndex(), chunk);
            body.write(chunk, 0, take);
        }
    }

    /**
     * The response's Content-Encoding when it is one the client does not decode, else null. gzip and deflate are
     * decoded before this handler (which removes the header); identity is none.
     */
    private static String undecodedEncoding(HttpResponse response) {
        String encoding = response.headers().get(HttpHeaderNames.CONTENT_ENCODING);
        if (encoding == null || encoding.isBlank()) return null;
        return HttpHeaderValues.IDENTITY.contentEqualsIgnoreCase(encoding.strip()) ? null : encoding.strip();
    }

    private Failure httpStatusFailure() {
        if (status >= 300 && status < 400) {
            String target = location == null || location.isBlank() ? null
                    : context.redactor().location(context.endpoint(), location);
            String variable = ApiRegistry.find(context.api().name()).map(ApiRegistry.Api::baseVariable)
                    .orElse(ApiRegistry.OPENAI_BASE);
            String base = target == null ? null : EndpointUrls.baseOf(target, EndpointUrls.suffix(context.api()));
            return new Failure(FailureKind.HTTP_STATUS, status,
                    FailureMessages.redirect(status, target, variable, base));
        }
        if (undecodedEncoding != null) {
            return new Failure(FailureKind.HTTP_STATUS, status,
                    FailureMessages.undecodedEncoding(context.hostAndPort(), status, undecodedEncoding));
        }
        String text = body.toString(StandardCharsets.UTF_8);
        if (text.isEmpty()) text = "HTTP " + status + " with an empty body";
        if (retryAfter != null) text = text + RetryAfter.note(retryAfter);
        return new Failure(FailureKind.HTTP_STATUS, status, text);
    }
}

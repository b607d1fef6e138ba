package io.llmperf4j.engine.client;

import io.llmperf4j.engine.client.impl.ConnectionPool;
import io.llmperf4j.engine.client.impl.Exchange;
import io.llmperf4j.engine.client.impl.ExchangeContext;
import io.llmperf4j.engine.client.impl.Redactor;
import io.llmperf4j.engine.client.impl.RequestBytes;
import io.llmperf4j.engine.client.impl.Transport;
import io.llmperf4j.engine.protocol.ChunkParser;
import io.llmperf4j.model.RequestSpec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.concurrent.DefaultThreadFactory;

import javax.net.ssl.SSLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The Netty client of every API in {@link ApiRegistry}: sends the requests of one {@link LlmApi} (OpenAI chat
 * completions by default) over HTTP/1.1 with pooled keep-alive connections.
 *
 * <p>Per request: {@code POST <endpoint>} with {@code Host}, {@code Authorization: Bearer <key>} (omitted when the key
 * is empty), {@code Content-Type: application/json}, {@code Accept: text/event-stream}, {@code User-Agent},
 * {@code Accept-Encoding: identity} (a gzip or deflate body is decoded all the same; another coding fails, named), the
 * extra headers (which may replace any of those), then {@code X-Request-Id} (unique, the record's
 * clientRequestId), a multi-turn session's {@code X-Correlation-ID} (its session id) and {@code Content-Length}. https is verified with the JDK's trust store (or the configured PEM)
 * and hostname verification, unless {@link ClientConfig#insecureTls()}. Events are stamped and parsed on the I/O
 * thread that read them; records are completed on worker threads.
 *
 * <p>A request is sent at most once to the server: it moves to another connection only when a reused keep-alive
 * connection proves dead before the request left whole (see {@code Exchange}). A connection closed after the request
 * was written is a CONNECTION_CLOSED record, so the server never sees more requests than are recorded.
 *
 * <pre>{@code
 * ClientConfig config = ClientConfig.builder(EndpointUrls.chatCompletions("http://localhost:8000/v1"), "my-model")
 *         .apiKey(Secret.of(System.getenv("OPENAI_API_KEY"))).maxConnections(concurrency).build();
 * try (NettyLlmClient client = new NettyLlmClient(config)) {
 *     RequestRecord r = client.send(spec).completion().join(); // never throws: failures are in r.failure()
 * }
 * }</pre>
 */
public final class NettyLlmClient implements LlmClient {

    /** How long {@link #close()} waits for cancelled requests to be recorded, and for threads to stop. */
    private static final long CLOSE_GRACE_MILLIS = 5_000;

    private final ClientConfig config;
    private final LlmApi api;
    private final Transport transport;
    private final ConnectionPool pool;
    private final ExecutorService workers;
    private final ExchangeContext context;
    private final String pathAndQuery;
    private final RequestBytes requestBytes;
    private final RequestIds requestIds = new RequestIds();
    private final Set<Exchange> inFlight = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * Starts the event loops and worker threads; connections open lazily on the first requests.
     *
     * @throws IllegalArgumentException when the trusted certificates cannot be loaded
     */
    public NettyLlmClient(ClientConfig config) {
        this(config, new OpenAiChatApi(true));
    }

    /** OpenAI chat streaming with another chunk interpretation (tests). */
    NettyLlmClient(ClientConfig config, ChunkParser parser) {
        this(config, new OpenAiChatApi(true, parser));
    }

    /**
     * For {@code api}; {@code config.endpoint()} must be the API's full URL ({@link LlmApi#endpoint}).
     *
     * @throws IllegalArgumentException when the trusted certificates cannot be loaded
     */
    public NettyLlmClient(ClientConfig config, LlmApi api) {
        this(config, api, Duration.ofNanos(Exchange.END_OF_BODY_GRACE_NANOS));
    }

    /**
     * With {@code endOfBodyGrace} for a connection's drain after an end event instead of the product's 200 ms: a test
     * that a drained connection goes back to the pool gives one that a loaded machine's late terminator cannot outrun.
     */
    NettyLlmClient(ClientConfig config, LlmApi api, Duration endOfBodyGrace) {
        this.config = Objects.requireNonNull(config, "config");
        this.api = Objects.requireNonNull(api, "api");
        SslContext ssl = config.isHttps() ? sslContext(config) : null;
        String host = stripBrackets(config.endpoint().getHost());
        this.transport = Transport.create(config.ioThreads(), config.preferNativeTransport());
        this.pool = new ConnectionPool(transport, ssl, host, config.port(), config.maxConnections(),
                config.connectTimeout().toMillis(), config.connectionMode() != ConnectionMode.PER_REQUEST);
        this.workers = Executors.newFixedThreadPool(config.workerThreads(),
                new DefaultThreadFactory("llmperf4j-worker", true));
        this.context = new ExchangeContext(pool, workers, transport.group(), api,
                new Redactor(config.apiKey(), config.extraHeaders()), config.idleTimeout().toNanos(),
                config.requestTimeout() == null ? 0 : config.requestTimeout().toNanos(),
                config.maxEventBytes(), config.hostAndPort(), config.endpoint(), endOfBodyGrace.toNanos());
        String rawPath = config.endpoint().getRawPath();
        this.pathAndQuery = (rawPath == null || rawPath.isEmpty() ? "/" : rawPath)
                + (config.endpoint().getRawQuery() == null ? "" : "?" + config.endpoint().getRawQuery());
        this.requestBytes = new RequestBytes(pathAndQuery, baseHeaders(config, api), ByteBufAllocator.DEFAULT);
    }

    public ClientConfig config() {
        return config;
    }

    public LlmApi api() {
        return api;
    }

    /** "epoll" or "nio". */
    public String transportName() {
        return transport.name();
    }

    /** TCP (and TLS) connections opened so far: equal to the requests sent when keep-alive never worked. */
    public int connectionsOpened() {
        return pool.connectionsOpened();
    }

    /** Connections open now, connecting, busy or idle; one the server closed drops out once its close is seen. */
    public int openConnections() {
        return pool.openConnections();
    }

    /** The event loops (tests block one to order a connection's events deterministically). */
    EventLoopGroup ioGroup() {
        return transport.group();
    }

    @Override
    public EventLoopGroup ioEventLoops() {
        return transport.group();
    }

    /** Requests whose record is not complete yet. */
    public int inFlight() {
        return inFlight.size();
    }

    /** The requests in flight and those still waiting for their response headers, the oldest's start among them. */
    public HeaderWait headerWait() {
        int count = 0;
        int waiting = 0;
        long oldest = 0;
        for (Exchange e : inFlight) {
            count++;
            long start = e.startNanos();
            if (start == 0 || e.headersReceived()) continue; // not started yet (a moment), or answered
            if (waiting++ == 0 || start - oldest < 0) oldest = start;
        }
        return new HeaderWait(count, waiting, oldest);
    }

    @Override
    public RequestHandle send(RequestSpec spec) {
        return send(spec, null);
    }

    @Override
    public RequestHandle send(RequestSpec spec, Runnable whenEnded) {
        return prepare(spec, whenEnded).send();
    }

    /**
     * Builds the request (body, wire bytes, bookkeeping) now, before its clock starts, as a user's prompt is ready
     * before it is sent; from the start stamp in {@link PreparedRequest#send()} on, only the connection and the
     * socket stand between it and the server.
     */
    @Override
    public PreparedRequest prepare(RequestSpec spec, Runnable whenEnded) {
        Objects.requireNonNull(spec, "spec");
        if (closed.get()) throw new IllegalStateException("the client is closed");
        String id = requestIds.next();
        // a session's turns name it (X-Correlation-ID), so a session-affinity router keeps it on one replica
        ByteBuf request = requestBytes.encode(id, spec.inputs() == null ? null : spec.inputs().sessionId(),
                api.body(config, spec));
        // its record keeps the max_tokens the body carried (--additional-sampling-params may replace the drawn one)
        Exchange exchange = new Exchange(context, spec.withMaxTokens(api.maxTokensSent(config, spec)), id, request);
        if (whenEnded != null) exchange.whenEnded(whenEnded);
        return new Ready(exchange);
    }

    /** A built exchange whose clock starts when it is sent. */
    private final class Ready implements PreparedRequest {
        private final Exchange exchange;
        private final AtomicBoolean used = new AtomicBoolean();

        Ready(Exchange exchange) {
            this.exchange = exchange;
        }

        @Override
        public RequestHandle send() {
            if (!used.compareAndSet(false, true)) {
                throw new IllegalStateException("this request was sent or discarded already");
            }
            if (closed.get()) {
                exchange.discard();
                throw new IllegalStateException("the client is closed");
            }
            inFlight.add(exchange);
            exchange.completionInternal().whenComplete((record, never) -> inFlight.remove(exchange));
            long startEpochMicros = epochMicros(Instant.now());
            // before acquiring a connection: TTFT includes the wait for a connection and any connect, like llmperf
            long startNanos = System.nanoTime();
            exchange.start(startNanos, startEpochMicros);
            return exchange;
        }

        @Override
        public void discard() {
            if (used.compareAndSet(false, true)) exchange.discard();
        }
    }

    /**
     * With {@link ConnectionMode#PRECONNECT}: opens connections until {@code connections} (at most
     * {@link ClientConfig#maxConnections()}) are open and waits for them; none in the other modes.
     */
    @Override
    public long[] preconnect(int connections) {
        if (closed.get() || config.connectionMode() != ConnectionMode.PRECONNECT || connections < 1) return new long[0];
        // every connect ends by itself (connect timeout, then the handshake timeout); the bound is a safety net
        long boundMillis = 2 * config.connectTimeout().toMillis() + CLOSE_GRACE_MILLIS;
        try {
            return pool.preconnect(connections).get(boundMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new long[0];
        } catch (ExecutionException | TimeoutException e) {
            return new long[0];
        }
    }

    /** Cancels what is in flight (recorded as CANCELLED), then closes connections and stops the threads. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        List<CompletableFuture<?>> pending = new ArrayList<>();
        for (Exchange e : inFlight) {
            pending.add(e.completionInternal());
            e.cancel();
        }
        try {
            CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0]))
                    .get(CLOSE_GRACE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // records never complete exceptionally; a timeout leaves them to the shutdown below
        }
        pool.close();
        transport.shutdown(CLOSE_GRACE_MILLIS);
        workers.shutdown();
        try {
            workers.awaitTermination(CLOSE_GRACE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static HttpHeaders baseHeaders(ClientConfig config, LlmApi api) {
        HttpHeaders h = new DefaultHttpHeaders();
        int port = config.endpoint().getPort();
        h.set(HttpHeaderNames.HOST, config.endpoint().getHost() + (port > 0 ? ":" + port : ""));
        api.headers(config.apiKey()).forEach(h::set);
        h.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        h.set(HttpHeaderNames.ACCEPT, api.streaming() ? HttpHeaderValues.TEXT_EVENT_STREAM
                : HttpHeaderValues.APPLICATION_JSON);
        h.set(HttpHeaderNames.USER_AGENT, "llmperf4j");
        // without it, any coding is acceptable (RFC 9110 12.5.3): a gateway may then compress, and buffer, the stream
        h.set(HttpHeaderNames.ACCEPT_ENCODING, HttpHeaderValues.IDENTITY);
        config.extraHeaders().forEach(h::set);
        return h;
    }

    private static SslContext sslContext(ClientConfig config) {
        try {
            SslContextBuilder builder = SslContextBuilder.forClient().sslProvider(SslProvider.JDK);
            if (config.insecureTls()) {
                // any certificate, any name: a self-signed test endpoint was asked for explicitly
                builder.trustManager(InsecureTrustManagerFactory.INSTANCE).endpointIdentificationAlgorithm(null);
            } else {
                builder.endpointIdentificationAlgorithm("HTTPS");
                if (config.trustedCertificatesPem() != null) {
                    builder.trustManager(config.trustedCertificatesPem().toFile());
                }
            }
            return builder.build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot set up TLS"
                    + (config.trustedCertificatesPem() == null ? "" : " with the certificates in "
                    + config.trustedCertificatesPem()) + ": " + e.getMessage(), e);
        }
    }

    private static String stripBrackets(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    private static long epochMicros(Instant now) {
        return Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000L), now.getNano() / 1_000L);
    }
}

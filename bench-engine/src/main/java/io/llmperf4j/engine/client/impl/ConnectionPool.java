package io.llmperf4j.engine.client.impl;

import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.FastThreadLocalThread;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Keep-alive HTTP/1.1 connections to one endpoint, at most {@code maxConnections} open (connecting, busy or idle).
 * An exchange gets an idle connection (most recently used first), else a new one, else waits in FIFO order. A
 * connection goes back to the pool only after a complete response that allows keep-alive; any other is closed, and
 * its close frees a slot for the next waiter. A connection that drains the rest of a body after its request ended
 * ({@link #draining}) frees its slot at once and is in no set: it takes a slot again (or is closed, when none is free)
 * once its body ended. Connections are handed over on their own event loop. An idle connection
 * the server closes leaves the pool as soon as its close is seen; one that dies in between is caught by the exchange
 * before it writes.
 */
public final class ConnectionPool implements ConnectionSource {

    private final Bootstrap bootstrap;
    private final String host;
    private final int port;
    private final String hostAndPort;
    private final int maxConnections;
    private final long connectTimeoutMillis;
    /** Connections go back to the idle set after a reusable response; false: one connection per request. */
    private final boolean keepAlive;

    private final Object lock = new Object();
    /** Idle connections looked at for one on the caller's own event loop. */
    private static final int SAME_LOOP_SCAN = 8;
    private final ArrayDeque<Channel> idle = new ArrayDeque<>();
    private final ArrayDeque<Exchange> waiters = new ArrayDeque<>();
    /** Connections draining a body, counted in no slot: their close frees none. */
    private final Set<Channel> drainingChannels = new HashSet<>();
    private int open;
    private boolean closed;
    private final AtomicInteger connectionsOpened = new AtomicInteger();

    /**
     * A test seam for tests of the send lag over real sockets: the JVM's system property of this name, read when a
     * pool is made, holds a pause in ms the event loop makes before it takes a pooled connection's request from a
     * sending thread, a stand-in for an event loop kept busy or cold (the QA's 140 ms on a cold client) that does not
     * rely on a loaded machine. Never set for a real run.
     */
    public static final String HAND_OFF_DELAY_PROPERTY = "llmperf4j.test.hand-off-delay-ms";
    private final long handOffDelayMillis = Long.getLong(HAND_OFF_DELAY_PROPERTY, 0);

    /**
     * @param ssl       client TLS context (hostname verification on), or null for plain http
     * @param keepAlive keep connections for later requests; false closes each after its response (llmperf's one
     *                  connection per request)
     */
    public ConnectionPool(Transport transport, SslContext ssl, String host, int port, int maxConnections,
                          long connectTimeoutMillis, boolean keepAlive) {
        this.keepAlive = keepAlive;
        this.host = host;
        this.port = port;
        this.hostAndPort = host + ":" + port;
        this.maxConnections = maxConnections;
        this.connectTimeoutMillis = connectTimeoutMillis;
        this.bootstrap = new Bootstrap()
                .group(transport.group())
                .channel(transport.channelClass())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectTimeoutMillis))
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ChannelPipeline p = ch.pipeline();
                        ArrivalClock clock = new ArrivalClock();
                        p.addLast("arrival-clock", clock);
                        if (ssl != null) {
                            SslHandler tls = ssl.newHandler(ch.alloc(), host, port); // SNI and hostname check
                            tls.setHandshakeTimeoutMillis(connectTimeoutMillis);
                            p.addLast("tls", tls);
                        }
                        // responses only: requests are written as ready bytes (RequestBytes), never encoded here
                        p.addLast("http", new HttpResponseDecoder());
                        // (a gzip or deflate body gets a decompressor after it, when one comes: CompressedBodies)
                        p.addLast("exchange", new ConnectionHandler(clock));
                    }
                });
    }

    /** Total connections successfully opened so far (diagnostics). */
    public int connectionsOpened() {
        return connectionsOpened.get();
    }

    /**
     * Connections open now: connecting, busy or idle, not draining (diagnostics; tests wait on it to see a close
     * noticed, or a drained connection back).
     */
    public int openConnections() {
        synchronized (lock) {
            return open;
        }
    }

    /** Finds or opens a connection for {@code exchange}, or queues it. Never blocks. */
    @Override
    public void acquire(Exchange exchange) {
        Channel ch = null;
        boolean refused;
        synchronized (lock) {
            refused = closed;
            if (!refused) {
                ch = pollIdle();
                if (ch == null) {
                    if (open >= maxConnections) {
                        waiters.addLast(exchange);
                        return;
                    }
                    open++;
                }
            }
        }
        if (refused) {
            exchange.endFromAnyThread(new Failure(FailureKind.CLIENT_ERROR, -1, "the client is closed"));
        } else if (ch != null) {
            handTo(ch, exchange);
        } else {
            connect(exchange);
        }
    }

    /** Gives a connection back: kept for reuse when {@code reusable} (and the pool keeps connections), else closed. */
    @Override
    public void release(Channel ch, boolean reusable) {
        if (!reusable || !keepAlive || !ch.isActive()) {
            ch.close(); // the close listener frees the slot
            return;
        }
        Exchange next;
        synchronized (lock) {
            if (closed) {
                next = null;
                reusable = false;
            } else {
                next = pollWaiter();
                if (next == null) idle.addLast(ch);
            }
        }
        if (!reusable) {
            ch.close();
        } else if (next != null) {
            handTo(ch, next);
        }
    }

    @Override
    public boolean keepsConnections() {
        return keepAlive;
    }

    /** Frees {@code ch}'s slot while it drains: a waiting request gets a new connection rather than wait for it. */
    @Override
    public void draining(Channel ch) {
        Exchange next = null;
        synchronized (lock) {
            open--;
            drainingChannels.add(ch);
            if (!closed && open < maxConnections) {
                next = pollWaiter();
                if (next != null) open++;
            }
        }
        if (next != null) connect(next);
    }

    /** Takes a slot again for a drained connection, when one is free; else closes it. */
    @Override
    public void drained(Channel ch) {
        boolean keep;
        synchronized (lock) {
            keep = !closed && open < maxConnections && drainingChannels.remove(ch);
            if (keep) open++;
        }
        if (keep) {
            release(ch, true);
        } else {
            ch.close(); // still in drainingChannels: its close frees no slot
        }
    }

    /** Closes idle connections and refuses new work; busy ones close as their exchanges end. */
    public void close() {
        List<Channel> toClose;
        synchronized (lock) {
            closed = true;
            toClose = new ArrayList<>(idle);
            idle.clear();
            waiters.clear();
        }
        toClose.forEach(Channel::close);
    }

    /**
     * Opens connections until {@code connections} (at most the limit) are open, idle ones included, and puts the new
     * ones in the idle set (or hands them to waiting exchanges). A pool that does not keep connections opens none.
     *
     * @return completes when every connect has ended, with the connect times (TCP and TLS) of those that succeeded
     */
    public CompletableFuture<long[]> preconnect(int connections) {
        int toOpen;
        synchronized (lock) {
            toOpen = closed || !keepAlive ? 0 : Math.max(0, Math.min(connections, maxConnections) - open);
            open += toOpen;
        }
        CompletableFuture<long[]> all = new CompletableFuture<>();
        if (toOpen == 0) {
            all.complete(new long[0]);
            return all;
        }
        long[] times = new long[toOpen];
        int[] counts = new int[2]; // [ended, succeeded], guarded by times
        for (int i = 0; i < toOpen; i++) {
            open(new Opened() {
                @Override
                public void ready(Channel ch, long connectNanos, long tlsNanos) {
                    release(ch, true);
                    ended(connectNanos);
                }

                @Override
                public void failed(String message) {
                    ended(-1);
                }

                private void ended(long connectNanos) {
                    long[] result = null;
                    synchronized (times) {
                        if (connectNanos >= 0) times[counts[1]++] = connectNanos;
                        if (++counts[0] == times.length) result = Arrays.copyOf(times, counts[1]);
                    }
                    if (result != null) all.complete(result);
                }
            });
        }
        return all;
    }

    /** What happens once a connect ends; called on the connection's event loop. */
    private interface Opened {
        /** The connection is usable, {@code connectNanos} after the connect began, {@code tlsNanos} of it TLS. */
        void ready(Channel ch, long connectNanos, long tlsNanos);

        /** It never became usable (its slot is already freed). */
        void failed(String message);
    }

    private void connect(Exchange exchange) {
        exchange.granted(System.nanoTime());
        open(new Opened() {
            @Override
            public void ready(Channel ch, long connectNanos, long tlsNanos) {
                exchange.connected(connectNanos, tlsNanos);
                exchange.attach(ch, false);
            }

            @Override
            public void failed(String message) {
                exchange.connectFailed(message);
            }
        });
    }

    /** Opens one connection in a slot already counted in {@code open}. */
    private void open(Opened then) {
        long connectStartNanos = System.nanoTime();
        ChannelFuture connecting = bootstrap.connect(host, port);
        connecting.addListener((ChannelFuture f) -> {
            if (!f.isSuccess()) {
                slotFreed(null);
                then.failed(FailureMessages.connectFailure(hostAndPort, f.cause(), connectTimeoutMillis));
                return;
            }
            Channel ch = f.channel();
            long tcpConnectedNanos = System.nanoTime();
            SslHandler tls = ch.pipeline().get(SslHandler.class);
            if (tls == null) {
                opened(ch);
                then.ready(ch, tcpConnectedNanos - connectStartNanos, RequestRecord.NEVER);
                return;
            }
            tls.handshakeFuture().addListener(h -> {
                if (h.isSuccess()) {
                    long handshakeDoneNanos = System.nanoTime();
                    opened(ch);
                    then.ready(ch, handshakeDoneNanos - connectStartNanos, handshakeDoneNanos - tcpConnectedNanos);
                } else {
                    ch.close();
                    slotFreed(null);
                    // CONNECT_FAILED too: the connection never became usable, so nothing was sent
                    then.failed(FailureMessages.tlsHandshakeFailure(hostAndPort, h.cause()));
                }
            });
        });
        giveWayToTheEventLoop();
    }

    /** On {@code ch}'s event loop: the connection is usable; its close will free its slot. */
    private void opened(Channel ch) {
        connectionsOpened.incrementAndGet();
        ch.closeFuture().addListener(f -> slotFreed(ch));
    }

    /** A connection (or a connect attempt) is gone: its slot may serve the next waiter. */
    private void slotFreed(Channel ch) {
        Exchange next = null;
        synchronized (lock) {
            if (ch != null && drainingChannels.remove(ch)) return; // closed while draining: it held no slot
            open--;
            if (ch != null) idle.remove(ch);
            if (!closed && open < maxConnections) {
                next = pollWaiter();
                if (next != null) open++;
            }
        }
        if (next != null) connect(next);
    }

    private Channel pollIdle() {
        Channel local = pollIdleOnThisEventLoop();
        if (local != null) return local;
        Channel ch;
        while ((ch = idle.pollLast()) != null) {
            if (ch.isActive()) return ch;
        }
        return null;
    }

    /**
     * Called on an event loop (a closed loop re-sending from the I/O thread that just ended a request), an idle
     * connection of that same loop among the most recently used: the request is then written at once, with no
     * hand-off to another thread. Looks at a few only, so a large idle set costs nothing.
     */
    private Channel pollIdleOnThisEventLoop() {
        int looked = 0;
        for (Iterator<Channel> it = idle.descendingIterator(); it.hasNext() && looked < SAME_LOOP_SCAN; looked++) {
            Channel ch = it.next();
            if (ch.eventLoop().inEventLoop()) {
                if (!ch.isActive()) return null; // let the plain path drop the dead ones
                it.remove();
                return ch;
            }
        }
        return null;
    }

    private Exchange pollWaiter() {
        Exchange e;
        while ((e = waiters.pollFirst()) != null) {
            if (!e.isTerminal()) return e; // cancelled waiters are already recorded
        }
        return null;
    }

    private void handTo(Channel ch, Exchange exchange) {
        exchange.granted(System.nanoTime());
        if (ch.eventLoop().inEventLoop()) {
            exchange.attach(ch, true); // already on the connection's thread: written now, no hand-off
            return;
        }
        try {
            ch.eventLoop().execute(() -> {
                if (handOffDelayMillis > 0) pauseForTest(handOffDelayMillis);
                exchange.attach(ch, true);
            });
        } catch (RejectedExecutionException e) {
            exchange.endFromAnyThread(new Failure(FailureKind.CLIENT_ERROR, -1, "the client is closed"));
            return;
        }
        giveWayToTheEventLoop();
    }

    private static void pauseForTest(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Called by a sending thread right after it handed a request to an event loop. The scheduler usually wakes the
     * loop on the sender's own core (wake-affine placement) and lets it run only when the sender's time slice ends:
     * measured, that wait was 0.6-0.9 ms of a 1 ms delay between a request's start stamp and its write on a reused
     * connection (p50, 2 busy cores). Yielding once lets the loop write the request now; the sender goes on a few
     * microseconds later. Event-loop threads never yield (they have their own connections to serve).
     */
    private static void giveWayToTheEventLoop() {
        if (!(Thread.currentThread() instanceof FastThreadLocalThread)) Thread.yield();
    }
}

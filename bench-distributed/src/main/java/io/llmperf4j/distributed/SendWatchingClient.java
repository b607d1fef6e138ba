package io.llmperf4j.distributed;

import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.PreparedRequest;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.netty.util.concurrent.EventExecutorGroup;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A worker's client that tells its {@link RecordStream} of each measured request as it goes out, so the coordinator
 * knows which requests a worker that dies had sent and which it never did. Warmup requests are not told: they are
 * not measured, so one in flight when the worker dies is neither lost nor a record (its record, as every warmup
 * record, would have come only with the worker's outcome). Which sends are warmup: every warmup request goes out
 * before the first measured one. A closed loop's runner sends with {@link #send(RequestSpec, Runnable)} and says the
 * measured window started ({@link RecordStream#measuring()}) on its sending thread just before its first measured
 * send; an open loop's pacer prepares each arrival's request once, in arrival order, so the first
 * {@code warmupArrivals} prepared are the warmup's. A send is told at the client's own start stamp
 * ({@link RequestHandle#startNanos()}), the instant its record counts from and the runner places its send at: a
 * stamp of this wrapper's, taken before the call, is not that instant (the client builds and writes the request
 * between the two), so a lost request's record would sit before where its record would have; it is used only when
 * the client tells no start. Everything else is the wrapped client's.
 */
final class SendWatchingClient implements LlmClient {
    private final LlmClient client;
    private final Watcher stream;
    private final int warmupArrivals;
    private final AtomicInteger prepared = new AtomicInteger();

    /** Who is told of the measured sends: a worker's {@link RecordStream}. */
    interface Watcher {
        /** Whether the runner's measured window started (a closed loop's sends from then on are measured). */
        boolean measuring();

        /** A measured request went out at {@code sentNanos} ({@link System#nanoTime()}). */
        void sent(String clientRequestId, RequestSpec spec, long sentNanos);
    }

    /** @param warmupArrivals an open loop's warmup arrivals (this worker's); 0 for a closed loop */
    SendWatchingClient(LlmClient client, Watcher stream, int warmupArrivals) {
        this.client = client;
        this.stream = stream;
        this.warmupArrivals = warmupArrivals;
    }

    @Override
    public RequestHandle send(RequestSpec spec) {
        long at = System.nanoTime();
        boolean warmup = !stream.measuring();
        return told(client.send(spec), spec, at, warmup);
    }

    @Override
    public RequestHandle send(RequestSpec spec, Runnable whenEnded) {
        long at = System.nanoTime();
        boolean warmup = !stream.measuring();
        return told(client.send(spec, whenEnded), spec, at, warmup);
    }

    @Override
    public PreparedRequest prepare(RequestSpec spec, Runnable whenEnded) {
        boolean warmup = prepared.getAndIncrement() < warmupArrivals; // counted even when the client refuses it
        PreparedRequest prepared = client.prepare(spec, whenEnded);
        return new PreparedRequest() {
            @Override
            public RequestHandle send() {
                long at = System.nanoTime();
                return told(prepared.send(), spec, at, warmup);
            }

            @Override
            public void discard() {
                prepared.discard();
            }
        };
    }

    private RequestHandle told(RequestHandle handle, RequestSpec spec, long beforeSendNanos, boolean warmup) {
        if (!warmup) {
            long start = handle.startNanos(); // the client's stamp: one instant for the send, its record and its loss
            stream.sent(handle.clientRequestId(), spec, start == RequestRecord.NEVER ? beforeSendNanos : start);
        }
        return handle;
    }

    @Override
    public long[] preconnect(int connections) {
        return client.preconnect(connections);
    }

    @Override
    public EventExecutorGroup ioEventLoops() {
        return client.ioEventLoops();
    }

    /** The wrapped client is closed by its owner. */
    @Override
    public void close() {
    }
}

package io.llmperf4j.distributed;

import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.model.RequestSpec;
import io.netty.util.concurrent.EventExecutorGroup;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A worker's client as its runner sees it, noting when the runner's first request went out
 * ({@link System#nanoTime()}). A runner stamps each send's offset from its own clock start just before it calls
 * {@code send}, so that moment less the first send's offset is where the runner's clock started, which the runner
 * does not report: it opens its connections first (as on one machine), and an open loop's schedule begins a little
 * after that, so it is not the end of the worker's wait for the shared instant.
 */
final class FirstSendStamp implements LlmClient {
    private static final long NONE = Long.MIN_VALUE;

    private final LlmClient client;
    private final AtomicLong firstSendNanos = new AtomicLong(NONE);

    FirstSendStamp(LlmClient client) {
        this.client = client;
    }

    @Override
    public RequestHandle send(RequestSpec spec) {
        stamp();
        return client.send(spec);
    }

    @Override
    public RequestHandle send(RequestSpec spec, Runnable whenEnded) {
        stamp();
        return client.send(spec, whenEnded);
    }

    @Override
    public long[] preconnect(int connections) {
        return client.preconnect(connections);
    }

    @Override
    public EventExecutorGroup ioEventLoops() {
        return client.ioEventLoops();
    }

    /** The worker closes its client itself; the runner never does. */
    @Override
    public void close() {
        client.close();
    }

    /**
     * Where the runner's clock started, from {@code targetNanos} (the shared instant on this machine's clock): its
     * first send, less that send's offset in {@code timeline} (the runner's every record, warmup included, with
     * offsets from its clock start); {@code otherwise} when nothing was sent.
     */
    long clockStartFrom(long targetNanos, List<ScheduledRecord> timeline, long otherwise) {
        long first = firstSendNanos.get();
        long firstOffset = timeline.stream().mapToLong(ScheduledRecord::actualSendOffsetNanos).min().orElse(-1);
        if (first == NONE || firstOffset < 0) return otherwise;
        return first - firstOffset - targetNanos;
    }

    private void stamp() {
        if (firstSendNanos.get() == NONE) firstSendNanos.compareAndSet(NONE, System.nanoTime());
    }
}

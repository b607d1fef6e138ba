package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory client whose every request succeeds {@code delayMillis} after it was sent (never sooner), on a timer
 * thread: TTFT is half the delay, two content events, two tokens by usage. Tracks the most requests in flight.
 */
public final class DelayedClient implements LlmClient {

    final List<RequestSpec> sent = new CopyOnWriteArrayList<>();
    final AtomicInteger inFlight = new AtomicInteger();
    public final AtomicInteger maxInFlight = new AtomicInteger();
    private final long delayMillis;
    private final AtomicInteger ids = new AtomicInteger();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "delayed-client");
        t.setDaemon(true);
        return t;
    });

    public DelayedClient(long delayMillis) {
        this.delayMillis = delayMillis;
    }

    @Override
    public RequestHandle send(RequestSpec spec) {
        sent.add(spec);
        maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        String id = "delayed-" + ids.incrementAndGet();
        CompletableFuture<RequestRecord> future = new CompletableFuture<>();
        AtomicBoolean ended = new AtomicBoolean();
        long delayNanos = TimeUnit.MILLISECONDS.toNanos(delayMillis);
        timer.schedule(() -> {
            if (ended.compareAndSet(false, true)) {
                inFlight.decrementAndGet();
                future.complete(new RequestRecord(spec.index(), id, null, 0, delayNanos / 2, delayNanos * 3 / 4,
                        delayNanos, 2, new long[] {delayNanos / 2, delayNanos * 3 / 4}, "ab",
                        spec.numberInputTokens(), spec.maxTokens(), -1, 10, 2, "stop", null));
            }
        }, delayMillis, TimeUnit.MILLISECONDS);
        return new RequestHandle() {
            @Override
            public String clientRequestId() {
                return id;
            }

            @Override
            public CompletableFuture<RequestRecord> completion() {
                return future.copy();
            }

            @Override
            public void cancel() {
                if (ended.compareAndSet(false, true)) {
                    inFlight.decrementAndGet();
                    future.complete(new RequestRecord(spec.index(), id, null, 0, -1, -1, 1, 0, null, "",
                            spec.numberInputTokens(), spec.maxTokens(), -1, null, null, null,
                            new Failure(FailureKind.CANCELLED, -1, "cancelled")));
                }
            }
        };
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}

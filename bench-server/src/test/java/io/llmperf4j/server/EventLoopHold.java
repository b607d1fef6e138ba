package io.llmperf4j.server;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A timing listener that holds the event loop of the first finished request's listener call until that loop's
 * shutdown has begun (at most 30 s), so a {@link SimulatedServer#close()} starts while the loop runs a task: the
 * window in which a Netty 4.2 loop stops without closing its channels. For the server's tests and the client's.
 */
public final class EventLoopHold implements RequestTimingListener {
    private final AtomicBoolean used = new AtomicBoolean();
    private final CountDownLatch holding = new CountDownLatch(1);

    @Override
    public void onRequestFinished(RequestTiming timing) {
        if (!used.compareAndSet(false, true)) return;
        EventExecutor loop = ThreadExecutorMap.currentExecutor(); // Netty internal: the loop running this call
        holding.countDown();
        long deadlineNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!loop.isShuttingDown() && System.nanoTime() - deadlineNanos < 0) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Waits (at most 20 s) until a loop is held. */
    public void awaitHolding() throws InterruptedException {
        assertTrue(holding.await(20, TimeUnit.SECONDS), "no request finished");
    }
}

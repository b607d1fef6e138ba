package io.llmperf4j.engine.load;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A runner's one-run-at-a-time rule, and its stop. A stop from any thread first closes the run's sending on the
 * stopping thread itself (the run's {@code closeNow}: under the run's lock, so no request starts after it, and the
 * requests still on the wire are cancelled), then puts a signal on the run's queue for the run's own thread, which
 * may be busy with a backlog of records to count. A stop asked for before the queue exists is handed over by
 * {@link #attach}.
 *
 * @param <F> what the run's queue carries
 */
final class RunGuard<F> {
    private final F stopSignal;
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile BlockingQueue<F> queue;
    private volatile Runnable closeNow;

    RunGuard(F stopSignal) {
        this.stopSignal = stopSignal;
    }

    /** @throws IllegalStateException when a run is already in progress */
    void begin() {
        if (!running.compareAndSet(false, true)) throw new IllegalStateException("a run is already in progress");
    }

    /**
     * The run's queue is ready; {@code close} ends its sending from the thread that stops it; {@code stopAlready}
     * puts the stop signal on the queue at once.
     */
    void attach(BlockingQueue<F> runQueue, Runnable close, boolean stopAlready) {
        closeNow = close;
        queue = runQueue;
        if (stopAlready) runQueue.add(stopSignal);
    }

    void end() {
        queue = null;
        closeNow = null;
        running.set(false);
    }

    /** Stops the current run, if any. Any thread. */
    void stop() {
        Runnable close = closeNow;
        BlockingQueue<F> q = queue;
        if (close != null) close.run();
        if (q != null) q.add(stopSignal);
    }
}

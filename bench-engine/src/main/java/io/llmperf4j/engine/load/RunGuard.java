package io.llmperf4j.engine.load;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A runner's one-run-at-a-time rule, and its stop: a stop from any thread is a signal put on the current run's
 * queue, which the run's own thread reads. A stop asked for before the queue exists is handed over by
 * {@link #attach}.
 *
 * @param <F> what the run's queue carries
 */
final class RunGuard<F> {
    private final F stopSignal;
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile BlockingQueue<F> queue;

    RunGuard(F stopSignal) {
        this.stopSignal = stopSignal;
    }

    /** @throws IllegalStateException when a run is already in progress */
    void begin() {
        if (!running.compareAndSet(false, true)) throw new IllegalStateException("a run is already in progress");
    }

    /** The run's queue is ready; {@code stopAlready} puts the stop signal on it at once. */
    void attach(BlockingQueue<F> runQueue, boolean stopAlready) {
        queue = runQueue;
        if (stopAlready) runQueue.add(stopSignal);
    }

    void end() {
        queue = null;
        running.set(false);
    }

    /** Stops the current run, if any. Any thread. */
    void stop() {
        BlockingQueue<F> q = queue;
        if (q != null) q.add(stopSignal);
    }
}

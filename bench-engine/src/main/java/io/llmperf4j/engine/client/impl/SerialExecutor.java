package io.llmperf4j.engine.client.impl;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs tasks one at a time, in submission order, on a shared pool: one per request, so a request's events are
 * handled in order while different requests are handled in parallel. A task that throws does not stop the ones after
 * it. When the pool rejects (it is shutting down), tasks run on the submitting thread so that records still complete.
 */
public final class SerialExecutor implements Executor {

    /** Tasks run per turn before the executor yields its pool thread to other requests. */
    private static final int TASKS_PER_TURN = 64;

    private final Executor pool;
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();

    public SerialExecutor(Executor pool) {
        this.pool = pool;
    }

    @Override
    public void execute(Runnable task) {
        tasks.add(task);
        schedule();
    }

    private void schedule() {
        if (scheduled.compareAndSet(false, true)) {
            try {
                pool.execute(this::drain);
            } catch (RejectedExecutionException e) {
                drain();
            }
        }
    }

    private void drain() {
        try {
            for (int i = 0; i < TASKS_PER_TURN; i++) {
                Runnable task = tasks.poll();
                if (task == null) break;
                try {
                    task.run();
                } catch (RuntimeException | Error e) {
                    Thread t = Thread.currentThread();
                    t.getUncaughtExceptionHandler().uncaughtException(t, e);
                }
            }
        } finally {
            scheduled.set(false);
            if (!tasks.isEmpty()) {
                schedule(); // tasks added while we were finishing, or more than one turn's worth
            }
        }
    }
}

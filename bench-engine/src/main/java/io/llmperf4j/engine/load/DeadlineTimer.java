package io.llmperf4j.engine.load;

import java.util.concurrent.locks.LockSupport;

/**
 * Runs an action at a run's deadline on a thread of its own ({@code llmperf4j-deadline}), unless closed first: a run's
 * own thread may be busy counting a backlog of records when its deadline comes, and sending must stop (and requests
 * still on the wire be cancelled) at the deadline all the same.
 */
final class DeadlineTimer implements AutoCloseable {
    private final Thread thread;
    private volatile boolean closed;

    private DeadlineTimer(long deadlineNanos, Runnable action) {
        thread = new Thread(() -> {
            long remaining;
            while (!closed && (remaining = deadlineNanos - System.nanoTime()) > 0) {
                LockSupport.parkNanos(this, remaining);
            }
            if (!closed) action.run();
        }, "llmperf4j-deadline");
        thread.setDaemon(true);
    }

    /** {@code action} at {@code deadlineNanos} ({@link System#nanoTime()}); none when it is {@link Deadlines#MAX_NANOS} away. */
    static DeadlineTimer at(long deadlineNanos, long timeoutNanos, Runnable action) {
        DeadlineTimer timer = new DeadlineTimer(deadlineNanos, action);
        if (timeoutNanos < Deadlines.MAX_NANOS) timer.thread.start();
        return timer;
    }

    /** No action after this, unless it had already begun (the actions close a run: a second close does nothing). */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
    }
}

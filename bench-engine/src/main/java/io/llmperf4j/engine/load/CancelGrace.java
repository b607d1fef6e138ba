package io.llmperf4j.engine.load;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The end of a run's wait for its cancelled requests: the client completes a cancelled request with a record of its
 * own, normally at once; a runner takes what arrives within {@link #GRACE} and records the rest itself.
 */
final class CancelGrace {
    /** How long a runner waits for the records of the requests it cancelled. */
    static final Duration GRACE = Duration.ofSeconds(10);

    private CancelGrace() {
    }

    /**
     * Takes what arrives on {@code queue} while {@code waiting} says requests are still out, for at most
     * {@link #GRACE}, and hands each to {@code take}. An interrupt does not end the wait (those records are the
     * run's to keep): the result says whether one came or was already pending, for the caller to restore once its
     * own bookkeeping is done.
     */
    static <T> boolean collect(BlockingQueue<T> queue, BooleanSupplier waiting, Consumer<T> take) {
        boolean interrupted = Thread.interrupted();
        long deadline = System.nanoTime() + GRACE.toNanos();
        while (waiting.getAsBoolean()) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) break;
            T item;
            try {
                item = queue.poll(remaining, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
                continue;
            }
            if (item != null) take.accept(item);
        }
        return interrupted;
    }
}

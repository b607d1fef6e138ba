package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.model.RequestRecord;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
        return collect(queue, waiting, take, GRACE);
    }

    /**
     * The record {@code handle} holds once its grace is over, or null: at once when the request was still on the wire
     * (it was cancelled and the client gave none); when it had ended on the wire ({@code wireEnded}), the client is
     * only building its record, with nothing left to wait for on the network, so it is waited for (at most
     * {@link #GRACE}): an answered request keeps its record, whatever grace a runner gave its cancelled ones.
     */
    static RequestRecord recordOf(RequestHandle handle, boolean wireEnded) {
        if (handle == null) return null;
        RequestRecord record = handle.completion().getNow(null);
        if (record != null || !wireEnded) return record;
        boolean interrupted = false;
        long deadline = System.nanoTime() + GRACE.toNanos();
        try {
            while (true) {
                try {
                    return handle.completion().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException | TimeoutException e) {
                    return null;
                }
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    /** As {@link #collect(BlockingQueue, BooleanSupplier, Consumer)}, for at most {@code grace}. */
    static <T> boolean collect(BlockingQueue<T> queue, BooleanSupplier waiting, Consumer<T> take, Duration grace) {
        boolean interrupted = Thread.interrupted();
        long deadline = System.nanoTime() + grace.toNanos();
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

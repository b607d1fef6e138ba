package io.llmperf4j.engine.load;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Hands a run's records to its {@link RecordListener} on a thread of its own, in the order given, so the listener's
 * work (the journal, the live line; 230 ms on its first call in a cold JVM) is never on the thread that sends: a
 * session's next turn, or another session's, waited behind it as send lag (the sessions QA, 2026-12-07). A listener
 * that throws stops the run ({@code onFailure}), and {@link #drain} throws it on the run's thread.
 */
final class RecordPublisher {
    private final RecordListener listener;
    private final Runnable onFailure;
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "llmperf4j-session-records");
        t.setDaemon(true);
        return t;
    });
    /** The listener's first failure; later records are not handed to it. */
    private volatile Throwable failure;

    RecordPublisher(RecordListener listener, Runnable onFailure) {
        this.listener = listener;
        this.onFailure = onFailure;
    }

    /** Queues {@code record} for the listener, after every record queued before it. */
    void publish(ScheduledRecord record) {
        thread.execute(() -> {
            if (failure != null) return;
            try {
                listener.onScheduledRecord(record);
            } catch (RuntimeException | Error e) {
                failure = e;
                onFailure.run();
            }
        });
    }

    /** Waits until the listener has had every record queued; throws what it threw, if it did. */
    void drain() {
        thread.shutdown();
        boolean interrupted = false;
        while (true) {
            try {
                if (thread.awaitTermination(1, TimeUnit.SECONDS)) break;
            } catch (InterruptedException e) {
                interrupted = true; // the listener's records are the run's results: wait for them
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
        Throwable f = failure;
        if (f instanceof RuntimeException r) throw r;
        if (f instanceof Error e) throw e;
    }
}

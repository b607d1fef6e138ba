package io.llmperf4j.distributed;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.IExecutorService;
import io.llmperf4j.engine.client.HeaderWait;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A worker's share telling the coordinator, once a second, its requests that have waited a second or more for their
 * response headers (and once more when none does), so the coordinator's progress line can say a silent server as a
 * single machine's does. Nothing is sent while the server answers: one message a second per worker at most.
 */
final class HeaderWaitReporter implements AutoCloseable {
    /** A wait shorter than this is an answer on its way, not silence: not worth a message. */
    static final long REPORTED_AFTER_NANOS = 1_000_000_000L;

    private final ScheduledExecutorService ticker;
    private boolean reported;

    HeaderWaitReporter(Supplier<HeaderWait> client, IExecutorService executor, Member coordinator, String jobId,
                       String workerId) {
        ticker = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "llmperf4j-worker-header-wait");
            thread.setDaemon(true);
            return thread;
        });
        ticker.scheduleWithFixedDelay(() -> {
            HeaderWait w = client.get();
            long age = w.waiting() == 0 ? 0 : System.nanoTime() - w.oldestStartNanos();
            boolean silent = w.waiting() > 0 && age >= REPORTED_AFTER_NANOS;
            if (!silent && !reported) return;
            reported = silent;
            try {
                executor.executeOnMember(new DeliverHeaderWait(jobId, workerId, w.inFlight(),
                        silent ? w.waiting() : 0, silent ? age : 0), coordinator);
            } catch (RuntimeException e) {
                // the coordinator left: the share stops on its own (LoadWorker), nothing to tell
            }
        }, 1, 1, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        ticker.shutdownNow();
    }
}

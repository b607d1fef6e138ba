package io.llmperf4j.distributed;

import io.llmperf4j.engine.load.ScheduledRecord;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The coordinator's side of record streaming: records by run, then by worker, as they arrive (any thread); and each
 * worker's word that its share is set up, and of each request it sent.
 */
final class RecordInbox {
    static final String CONTEXT_KEY = "llmperf4j.inbox";

    /** Receives the records of one run. */
    interface Collector {
        void onRecord(String workerId, ScheduledRecord record);

        /**
         * The worker has set its share up and waits for the start instant, with the connect times of the
         * connections it opened for it.
         */
        void onReady(String workerId, long[] preconnectNanos);

        /** Measured requests the worker said it sent that have no record yet (what its loss would make LOST). */
        default int sentWithoutRecord(String workerId) {
            return 0;
        }

        /** Measured requests the worker sent since its last word. */
        void onSent(String workerId, SentRequests sends);

        /**
         * The worker's requests waiting for their response headers, the oldest for {@code oldestAgeNanos} (0 and 0
         * once none has waited long): {@link HeaderWaitReporter}.
         */
        default void onHeaderWait(String workerId, int inFlight, int waiting, long oldestAgeNanos) {
        }

        /** The worker was stopped on its machine and leaves: its part is settled now ({@link DeliverLeaving}). */
        default void onLeaving(String workerId) {
        }
    }

    private final Map<String, Collector> runs = new ConcurrentHashMap<>();

    void open(String jobId, Collector collector) {
        runs.put(jobId, collector);
    }

    void close(String jobId) {
        runs.remove(jobId);
    }

    void deliver(String jobId, String workerId, ScheduledRecord record) {
        Collector c = runs.get(jobId);
        if (c != null) c.onRecord(workerId, record); // a record of a run already closed is dropped
    }

    void ready(String jobId, String workerId, long[] preconnectNanos) {
        Collector c = runs.get(jobId);
        if (c != null) c.onReady(workerId, preconnectNanos);
    }

    /** Over the open runs, worker {@code workerId}'s requests sent without a record yet. */
    int sentWithoutRecord(String workerId) {
        return runs.values().stream().mapToInt(c -> c.sentWithoutRecord(workerId)).sum();
    }

    void sent(String jobId, String workerId, SentRequests sends) {
        Collector c = runs.get(jobId);
        if (c != null) c.onSent(workerId, sends);
    }

    void leaving(String jobId, String workerId) {
        Collector c = runs.get(jobId);
        if (c != null) c.onLeaving(workerId);
    }

    void headerWait(String jobId, String workerId, int inFlight, int waiting, long oldestAgeNanos) {
        Collector c = runs.get(jobId);
        if (c != null) c.onHeaderWait(workerId, inFlight, waiting, oldestAgeNanos);
    }
}

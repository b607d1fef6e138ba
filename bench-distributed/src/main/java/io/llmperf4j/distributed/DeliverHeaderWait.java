package io.llmperf4j.distributed;

import java.io.Serial;

/**
 * Runs on the coordinator: a worker's requests still waiting for their response headers, for the progress line's
 * silent-server note ({@link HeaderWaitReporter}). The oldest wait travels as an age, not an instant: the two
 * machines' monotonic clocks do not compare.
 */
final class DeliverHeaderWait extends InboxTask {
    @Serial
    private static final long serialVersionUID = 1L;

    private final int inFlight;
    private final int waiting;
    private final long oldestAgeNanos;

    DeliverHeaderWait(String jobId, String workerId, int inFlight, int waiting, long oldestAgeNanos) {
        super(jobId, workerId);
        this.inFlight = inFlight;
        this.waiting = waiting;
        this.oldestAgeNanos = oldestAgeNanos;
    }

    @Override
    void tell(RecordInbox inbox, String jobId, String workerId) {
        inbox.headerWait(jobId, workerId, inFlight, waiting, oldestAgeNanos);
    }
}

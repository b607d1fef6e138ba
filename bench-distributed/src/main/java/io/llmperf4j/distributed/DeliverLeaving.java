package io.llmperf4j.distributed;

import java.io.Serial;

/**
 * Runs on the coordinator: a worker stopped on its machine (SIGTERM or Ctrl-C) cut its share and is about to leave.
 * Its last sends and records went out before this word, so the coordinator can settle its part now, with the reason,
 * instead of when the cluster drops it.
 */
final class DeliverLeaving extends InboxTask {
    @Serial
    private static final long serialVersionUID = 1L;

    DeliverLeaving(String jobId, String workerId) {
        super(jobId, workerId);
    }

    @Override
    void tell(RecordInbox inbox, String jobId, String workerId) {
        inbox.leaving(jobId, workerId);
    }
}

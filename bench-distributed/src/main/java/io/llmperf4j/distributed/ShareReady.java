package io.llmperf4j.distributed;

import java.io.Serial;

/**
 * Runs on the coordinator: a worker has set its share up (client, connections, prompts) and waits for the start
 * instant; once every worker has said so the coordinator fixes it.
 */
final class ShareReady extends InboxTask {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The connect times of the connections the worker opened for its share: counted even if it dies later. */
    private final long[] preconnectNanos;

    ShareReady(String jobId, String workerId, long[] preconnectNanos) {
        super(jobId, workerId);
        this.preconnectNanos = preconnectNanos.clone();
    }

    @Override
    void tell(RecordInbox inbox, String jobId, String workerId) {
        inbox.ready(jobId, workerId, preconnectNanos);
    }
}

package io.llmperf4j.distributed;

import java.io.Serial;

/** Runs on the coordinator: a worker's measured requests sent since its last word. */
final class DeliverSends extends InboxTask {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String sendsJson;

    DeliverSends(String jobId, String workerId, SentRequests sends) {
        super(jobId, workerId);
        this.sendsJson = Wire.write(sends);
    }

    @Override
    void tell(RecordInbox inbox, String jobId, String workerId) {
        inbox.sent(jobId, workerId, Wire.read(sendsJson, SentRequests.class));
    }
}

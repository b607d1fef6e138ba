package io.llmperf4j.distributed;

import io.llmperf4j.engine.load.ScheduledRecord;

import java.io.Serial;

/**
 * Runs on the coordinator: one record a worker just finished, so that a worker which dies later has lost only the
 * requests it had not finished.
 */
final class DeliverRecord extends InboxTask {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String recordJson;

    DeliverRecord(String jobId, String workerId, ScheduledRecord record) {
        super(jobId, workerId);
        this.recordJson = Wire.write(record);
    }

    @Override
    void tell(RecordInbox inbox, String jobId, String workerId) {
        inbox.deliver(jobId, workerId, Wire.read(recordJson, ScheduledRecord.class));
    }
}

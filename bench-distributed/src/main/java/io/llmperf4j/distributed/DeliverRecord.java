package io.llmperf4j.distributed;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import io.llmperf4j.engine.load.ScheduledRecord;

import java.io.Serial;
import java.io.Serializable;

/**
 * Runs on the coordinator: one record a worker just finished, so that a worker which dies later has lost only the
 * requests it had not finished.
 */
final class DeliverRecord implements Runnable, Serializable, HazelcastInstanceAware {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String jobId;
    private final String workerId;
    private final String recordJson;
    private transient HazelcastInstance instance;

    DeliverRecord(String jobId, String workerId, ScheduledRecord record) {
        this.jobId = jobId;
        this.workerId = workerId;
        this.recordJson = Wire.write(record);
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public void run() {
        Object inbox = instance.getConfig().getUserContext().get(RecordInbox.CONTEXT_KEY);
        if (inbox instanceof RecordInbox i) {
            i.deliver(jobId, workerId, Wire.read(recordJson, ScheduledRecord.class));
        }
    }
}

package io.llmperf4j.distributed;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;

import java.io.Serial;
import java.io.Serializable;

/** Runs on the coordinator: a worker's measured requests sent since its last word. */
final class DeliverSends implements Runnable, Serializable, HazelcastInstanceAware {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String jobId;
    private final String workerId;
    private final String sendsJson;
    private transient HazelcastInstance instance;

    DeliverSends(String jobId, String workerId, SentRequests sends) {
        this.jobId = jobId;
        this.workerId = workerId;
        this.sendsJson = Wire.write(sends);
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public void run() {
        if (instance.getConfig().getUserContext().get(RecordInbox.CONTEXT_KEY) instanceof RecordInbox inbox) {
            inbox.sent(jobId, workerId, Wire.read(sendsJson, SentRequests.class));
        }
    }
}

package io.llmperf4j.distributed;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;

import java.io.Serial;
import java.io.Serializable;

/**
 * Runs on the coordinator: a worker has set its share up (client, connections, prompts) and waits for the start
 * instant; once every worker has said so the coordinator fixes it.
 */
final class ShareReady implements Runnable, Serializable, HazelcastInstanceAware {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String jobId;
    private final String workerId;
    /** The connect times of the connections the worker opened for its share: counted even if it dies later. */
    private final long[] preconnectNanos;
    private transient HazelcastInstance instance;

    ShareReady(String jobId, String workerId, long[] preconnectNanos) {
        this.jobId = jobId;
        this.workerId = workerId;
        this.preconnectNanos = preconnectNanos.clone();
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public void run() {
        if (instance.getConfig().getUserContext().get(RecordInbox.CONTEXT_KEY) instanceof RecordInbox inbox) {
            inbox.ready(jobId, workerId, preconnectNanos);
        }
    }
}

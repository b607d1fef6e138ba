package io.llmperf4j.distributed;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;

import java.io.Serial;
import java.io.Serializable;

/**
 * A worker's word to the coordinator, run there on its {@link RecordInbox} (a member without one, not the run's
 * coordinator, ignores it): the shape {@link ShareReady}, {@link DeliverRecord} and {@link DeliverSends} share.
 */
abstract class InboxTask implements Runnable, Serializable, HazelcastInstanceAware {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String jobId;
    private final String workerId;
    private transient HazelcastInstance instance;

    InboxTask(String jobId, String workerId) {
        this.jobId = jobId;
        this.workerId = workerId;
    }

    @Override
    public final void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public final void run() {
        if (instance.getConfig().getUserContext().get(RecordInbox.CONTEXT_KEY) instanceof RecordInbox inbox) {
            tell(inbox, jobId, workerId);
        }
    }

    /** Tells the coordinator's inbox this word of worker {@code workerId} in job {@code jobId}. */
    abstract void tell(RecordInbox inbox, String jobId, String workerId);
}

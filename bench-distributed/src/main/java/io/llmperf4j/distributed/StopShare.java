package io.llmperf4j.distributed;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;

import java.io.Serial;
import java.io.Serializable;

/** Runs on a worker: stop its share of run {@code jobId} (the coordinator got Ctrl-C); in-flight requests are cancelled. */
final class StopShare implements Runnable, Serializable, HazelcastInstanceAware {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String jobId;
    private transient HazelcastInstance instance;

    StopShare(String jobId) {
        this.jobId = jobId;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public void run() {
        if (instance.getConfig().getUserContext().get(LoadWorker.CONTEXT_KEY) instanceof LoadWorker worker) {
            worker.stop(jobId);
        }
    }
}

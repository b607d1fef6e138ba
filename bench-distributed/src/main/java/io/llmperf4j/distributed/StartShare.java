package io.llmperf4j.distributed;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;

import java.io.Serial;
import java.io.Serializable;

/**
 * Runs on a worker: the shared start instant of its share of run {@code jobId}, on this worker's wall clock (the
 * coordinator added the clock offset it estimated).
 */
final class StartShare implements Runnable, Serializable, HazelcastInstanceAware {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String jobId;
    private final long startEpochMicros;
    private transient HazelcastInstance instance;

    StartShare(String jobId, long startEpochMicros) {
        this.jobId = jobId;
        this.startEpochMicros = startEpochMicros;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public void run() {
        if (instance.getConfig().getUserContext().get(LoadWorker.CONTEXT_KEY) instanceof LoadWorker worker) {
            worker.start(jobId, startEpochMicros);
        }
    }
}

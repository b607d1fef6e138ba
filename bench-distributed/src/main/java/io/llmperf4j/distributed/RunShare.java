package io.llmperf4j.distributed;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;

import java.io.Serial;
import java.io.Serializable;
import java.util.concurrent.Callable;

/** Runs on a worker: its share of a run, handed to the {@link LoadWorker} of that process; returns the outcome. */
final class RunShare implements Callable<String>, Serializable, HazelcastInstanceAware {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String jobJson;
    private transient HazelcastInstance instance;

    RunShare(WorkerJob job) {
        this.jobJson = Wire.write(job);
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public String call() {
        Object worker = instance.getConfig().getUserContext().get(LoadWorker.CONTEXT_KEY);
        if (!(worker instanceof LoadWorker w)) {
            throw new IllegalStateException("member " + ClusterNode.idOf(instance.getCluster().getLocalMember())
                    + " is not a load worker");
        }
        return Wire.write(w.run(Wire.read(jobJson, WorkerJob.class), instance));
    }
}

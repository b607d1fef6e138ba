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
        return Wire.write(LoadWorker.of(instance).run(Wire.read(jobJson, WorkerJob.class), instance));
    }
}

package io.llmperf4j.distributed;

import com.fasterxml.jackson.core.type.TypeReference;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import io.llmperf4j.model.RequestSpec;

import java.io.Serial;
import java.io.Serializable;
import java.util.List;
import java.util.concurrent.Callable;

/** Runs on the coordinator: a worker's parts of the next batches of its run's fresh prompts ({@link PromptBatches}). */
final class TakePrompts implements Callable<String>, Serializable, HazelcastInstanceAware {
    @Serial
    private static final long serialVersionUID = 1L;
    static final TypeReference<List<List<RequestSpec>>> PARTS = new TypeReference<>() {
    };

    private final String jobId;
    private final int slice;
    private final int from;
    private final int count;
    private transient HazelcastInstance instance;

    TakePrompts(String jobId, int slice, int from, int count) {
        this.jobId = jobId;
        this.slice = slice;
        this.from = from;
        this.count = count;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public String call() {
        if (!(instance.getConfig().getUserContext().get(PromptBatches.CONTEXT_KEY) instanceof PromptBatches p)) {
            throw new IllegalStateException("this member draws no prompts");
        }
        return Wire.write(p.take(jobId, slice, from, count));
    }
}

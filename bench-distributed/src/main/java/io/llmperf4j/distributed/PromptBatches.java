package io.llmperf4j.distributed;

import io.llmperf4j.model.RequestSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;

/**
 * The coordinator's side of fresh prompts on a cluster ({@link io.llmperf4j.engine.load.FreshRequests}): a run whose
 * workload is an endless sequence deals each batch of it out between the workers as it dealt the first (each
 * worker's part of batch k is its own batch k), so every worker sends a sequence of its own, the same for the same
 * --seed, and no two workers send the same request. A batch is drawn once, when the first worker asks for it, and
 * dropped when every worker has taken its part.
 */
final class PromptBatches {
    static final String CONTEXT_KEY = "llmperf4j.prompts";

    private final Map<String, Run> runs = new ConcurrentHashMap<>();

    /** {@code parts}: batch k (&gt;= 1) dealt out, one part per worker slice. */
    void open(String jobId, int slices, IntFunction<List<List<RequestSpec>>> parts) {
        runs.put(jobId, new Run(slices, parts));
    }

    void close(String jobId) {
        runs.remove(jobId);
    }

    /**
     * Worker {@code slice}'s parts of batches {@code from .. from + count - 1}.
     *
     * @throws IllegalStateException when the run is over (or never was)
     */
    List<List<RequestSpec>> take(String jobId, int slice, int from, int count) {
        Run run = runs.get(jobId);
        if (run == null) throw new IllegalStateException("run " + jobId + " is not drawing prompts here");
        List<List<RequestSpec>> out = new ArrayList<>(count);
        for (int k = from; k < from + count; k++) out.add(run.take(k, slice));
        return out;
    }

    /** One run's batches drawn and not yet taken by every worker. */
    private static final class Run {
        private final int slices;
        private final IntFunction<List<List<RequestSpec>>> parts;
        private final Map<Integer, Batch> drawn = new ConcurrentHashMap<>();

        Run(int slices, IntFunction<List<List<RequestSpec>>> parts) {
            this.slices = slices;
            this.parts = parts;
        }

        List<RequestSpec> take(int k, int slice) {
            if (k < 1) throw new IllegalArgumentException("batch " + k + " is the workers' own");
            if (slice < 0 || slice >= slices) throw new IllegalArgumentException("no worker slice " + slice);
            Batch batch = drawn.computeIfAbsent(k, b -> new Batch(parts.apply(b)));
            synchronized (batch) {
                if (++batch.taken == slices) drawn.remove(k);
            }
            return batch.parts.get(slice);
        }
    }

    private static final class Batch {
        final List<List<RequestSpec>> parts;
        int taken;

        Batch(List<List<RequestSpec>> parts) {
            this.parts = parts;
        }
    }
}

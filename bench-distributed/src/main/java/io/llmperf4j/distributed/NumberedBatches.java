package io.llmperf4j.distributed;

import io.llmperf4j.engine.load.FreshRequests;
import io.llmperf4j.model.RequestSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The batches of a run's fresh prompts ({@link FreshRequests}) as the coordinator deals them out: each request
 * numbered by its place in the whole sequence as drawn (batch 0 from 0, batch k on from batch k-1's last), which
 * each worker's part keeps ({@link FreshRequests#part}). The workers' records then share a prompt index only when
 * they sent the same prompt, as one machine's do; numbered per worker, two workers' first requests were both 0, and
 * a repeat counted by index (PREFIX_CACHE_REUSED) took an earlier run's cache for this run's own repeats.
 */
final class NumberedBatches implements IntFunction<List<RequestSpec>> {
    private final FreshRequests sequence;
    /** Batch k's first number, for every batch whose predecessors' sizes are known. */
    private final List<Integer> firsts = new ArrayList<>(List.of(0));

    NumberedBatches(FreshRequests sequence) {
        this.sequence = sequence;
    }

    /** Batch {@code k} (0 the sequence's first), numbered. */
    @Override
    public List<RequestSpec> apply(int k) {
        List<RequestSpec> batch = sequence.batch(k); // drawn outside the lock: the costly part
        int first = first(k, batch.size());
        List<RequestSpec> numbered = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            RequestSpec spec = batch.get(i);
            numbered.add(new RequestSpec(first + i, spec.prompt(), spec.numberInputTokens(), spec.maxTokens(),
                    spec.inputs()));
        }
        return numbered;
    }

    /** Batch k's first number, noting where batch k + 1's starts. */
    private synchronized int first(int k, int size) {
        // the workers take batches in order, so the earlier ones' sizes are known; else they are drawn to count
        while (firsts.size() <= k) {
            int j = firsts.size() - 1;
            firsts.add(firsts.get(j) + sequence.batch(j).size());
        }
        if (firsts.size() == k + 1) firsts.add(firsts.get(k) + size);
        return firsts.get(k);
    }
}

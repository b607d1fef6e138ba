package io.llmperf4j.distributed;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.IExecutorService;
import io.llmperf4j.model.RequestSpec;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/**
 * A worker's side of fresh prompts on a cluster: its part of batch k of the run's sequence, taken from the
 * coordinator ({@link TakePrompts}) several batches at a time. The worker's sequence calls it on its drawing thread,
 * off the send path; {@link #prefetch} takes the first ones before the shared start, so the runner's first draws,
 * made before its clock, wait for no round trip.
 */
final class CoordinatorBatches implements IntFunction<List<RequestSpec>> {
    private static final long TAKE_TIMEOUT_SECONDS = 30;

    private final IExecutorService executor;
    private final Member coordinator;
    private final String jobId;
    private final int slice;
    private final int perTake;
    private final Map<Integer, List<RequestSpec>> taken = new ConcurrentHashMap<>();

    /** @param perTake batches taken per round trip */
    CoordinatorBatches(IExecutorService executor, Member coordinator, String jobId, int slice, int perTake) {
        this.executor = executor;
        this.coordinator = coordinator;
        this.jobId = jobId;
        this.slice = slice;
        this.perTake = Math.max(1, perTake);
    }

    /** Takes batches 1 .. {@code count} now. */
    void prefetch(int count) {
        if (count > 0) take(1, count);
    }

    @Override
    public List<RequestSpec> apply(int k) {
        List<RequestSpec> batch = taken.remove(k);
        if (batch != null) return batch;
        take(k, perTake);
        return taken.remove(k);
    }

    private void take(int from, int count) {
        String json;
        try {
            json = executor.submitToMember(new TakePrompts(jobId, slice, from, count), coordinator)
                    .get(TAKE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while taking prompts from the coordinator", e);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new IllegalStateException("cannot take prompts from the coordinator: " + cause, cause);
        }
        List<List<RequestSpec>> parts = Wire.read(json, TakePrompts.PARTS);
        for (int i = 0; i < parts.size(); i++) taken.put(from + i, parts.get(i));
    }
}

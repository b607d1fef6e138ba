package io.llmperf4j.distributed;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.IExecutorService;
import io.llmperf4j.model.RequestSpec;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/**
 * A worker's side of fresh prompts on a cluster: its part of batch k of the run's sequence, taken from the
 * coordinator ({@link TakePrompts}) several batches at a time. The worker's sequence calls it on its drawing thread,
 * off the send path; {@link #prefetch} takes the first ones before the shared start, so the runner's first draws,
 * made before its clock, wait for no round trip. When the sequence starts on batch k, batch k + 1 is taken in the
 * background: a round trip carries a worker's part of a whole batch (1,500 prompts of 4,000 tokens: some 30 MB of
 * JSON), which took about 2 s on a busy machine, longer than the prompts kept ready last.
 */
final class CoordinatorBatches implements IntFunction<List<RequestSpec>> {
    private static final long TAKE_TIMEOUT_SECONDS = 30;

    private final IExecutorService executor;
    private final Member coordinator;
    private final String jobId;
    private final int slice;
    private final int perTake;
    private final Map<Integer, List<RequestSpec>> taken = new ConcurrentHashMap<>();
    /** The take in the background, or null; the sequence's drawing thread's own. */
    private CompletableFuture<Void> ahead;

    /** @param perTake batches taken per round trip */
    CoordinatorBatches(IExecutorService executor, Member coordinator, String jobId, int slice, int perTake) {
        this.executor = executor;
        this.coordinator = coordinator;
        this.jobId = jobId;
        this.slice = slice;
        this.perTake = Math.max(1, perTake);
    }

    /** Takes batches 1 .. {@code count} now; with none, starts taking batch 1 in the background. */
    void prefetch(int count) {
        if (count > 0) {
            take(1, count);
        } else {
            takeAhead(1);
        }
    }

    @Override
    public List<RequestSpec> apply(int k) {
        List<RequestSpec> batch = taken.remove(k);
        if (batch == null && ahead != null) {
            ahead.exceptionally(e -> null).join(); // a failed take is made again below, which says why
            batch = taken.remove(k);
        }
        if (batch == null) {
            take(k, perTake);
            batch = taken.remove(k);
        }
        if (!taken.containsKey(k + 1)) takeAhead(k + 1);
        return batch;
    }

    private void takeAhead(int from) {
        ahead = CompletableFuture.runAsync(() -> take(from, perTake), CoordinatorBatches::onThreadOfItsOwn);
    }

    /** One thread a take: one take a batch, and it must not hold up the JVM's exit at the run's end. */
    private static void onThreadOfItsOwn(Runnable take) {
        Thread thread = new Thread(take, "llmperf4j-prompt-take");
        thread.setDaemon(true);
        thread.start();
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

package io.llmperf4j.distributed;

import io.llmperf4j.model.RequestSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntFunction;

/**
 * The coordinator's side of fresh prompts on a cluster ({@link io.llmperf4j.engine.load.FreshRequests}): a run whose
 * workload is an endless sequence deals each batch of it out between the workers as it dealt the first (each
 * worker's part of batch k is its own batch k), so every worker sends a sequence of its own, the same for the same
 * --seed, and no two workers send the same request.
 *
 * <p>Batches are drawn ahead, one at a time on a thread of the run's own: batch 1 as soon as the run opens, batch k + 1
 * once a worker has taken its part of batch k, so a worker's request is answered from a batch already drawn. Drawn on
 * the spot, a worker waited the whole draw (3,000 prompts of 4,000 tokens: about 3 s) with its ready prompts running
 * out, and its sends stalled inside the measured window. At most one batch is drawn beyond the last one taken; a batch
 * is dropped when every worker has taken its part.
 */
final class PromptBatches {
    static final String CONTEXT_KEY = "llmperf4j.prompts";

    private final Map<String, Run> runs = new ConcurrentHashMap<>();

    /** {@code parts}: batch k (&gt;= 1) dealt out, one part per worker slice. Starts drawing batch 1. */
    void open(String jobId, int slices, IntFunction<List<List<RequestSpec>>> parts) {
        Run run = new Run(slices, parts);
        Run earlier = runs.put(jobId, run);
        if (earlier != null) earlier.close();
        run.drawAhead(1);
    }

    void close(String jobId) {
        Run run = runs.remove(jobId);
        if (run != null) run.close();
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

    /** Batches drawn (or being drawn) of one run, and not yet taken by every worker. */
    private static final class Run {
        private final int slices;
        private final IntFunction<List<List<RequestSpec>>> parts;
        private final Map<Integer, Batch> drawn = new ConcurrentHashMap<>();
        /** One thread: batches are drawn in order, as the sequence numbers them. */
        private final ExecutorService drawer = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "llmperf4j-prompt-batches");
            t.setDaemon(true);
            return t;
        });

        Run(int slices, IntFunction<List<List<RequestSpec>>> parts) {
            this.slices = slices;
            this.parts = parts;
        }

        /** Batch k, drawing it (in the background) unless it is drawn or being drawn. */
        private Batch drawAhead(int k) {
            return drawn.computeIfAbsent(k, b -> new Batch(CompletableFuture.supplyAsync(() -> parts.apply(b), drawer)));
        }

        List<RequestSpec> take(int k, int slice) {
            if (k < 1) throw new IllegalArgumentException("batch " + k + " is the workers' own");
            if (slice < 0 || slice >= slices) throw new IllegalArgumentException("no worker slice " + slice);
            Batch batch = drawAhead(k);
            List<List<RequestSpec>> dealt = batch.await(k);
            synchronized (batch) {
                if (++batch.taken == slices) drawn.remove(k);
            }
            drawAhead(k + 1); // ready before any worker asks for it
            return dealt.get(slice);
        }

        void close() {
            drawer.shutdownNow();
            drawn.clear();
        }
    }

    private static final class Batch {
        final CompletableFuture<List<List<RequestSpec>>> parts;
        int taken;

        Batch(CompletableFuture<List<List<RequestSpec>>> parts) {
            this.parts = parts;
        }

        List<List<RequestSpec>> await(int k) {
            try {
                return parts.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while batch " + k + " of the prompts was drawn", e);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RuntimeException r) throw r;
                throw new IllegalStateException("cannot draw batch " + k + " of the prompts: " + e.getCause(),
                        e.getCause());
            }
        }
    }
}

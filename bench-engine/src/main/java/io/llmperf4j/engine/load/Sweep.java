package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * The same workload at each level of a {@link SweepPlan}, one after the other on one client, with a pause between
 * levels, then a {@link SaturationVerdict} over the levels.
 *
 * <p>Stopping (the seed guide: "Ctrl-C that level, record its failure rate and go on"): the first {@link #stop()}
 * during a level aborts that level (in-flight requests are cancelled and recorded; the level is kept, marked
 * aborted) and the sweep goes on with the next level. A second {@code stop()} during the same level, or one during
 * the pause between levels, ends the whole sweep. {@link #stopAll()} ends it at once. An interrupt of the sweep's
 * thread ends it too.
 */
public final class Sweep {

    private final LlmClient client;
    private final TokenCounter tokenCounter;
    /** A level's figures, by the run's count. */
    private final Function<LoadResult, LevelSummary> summary;
    private final Object lock = new Object();
    private LoadRunner current;          // guarded by lock
    private boolean levelStopRequested;  // guarded by lock
    private boolean sweepStopRequested;  // guarded by lock
    private boolean running;             // guarded by lock

    /**
     * @param tokenCounter counts each record's output tokens (the runners fill {@code RequestRecord.outputTokens})
     * @param outputTokens the token count used for throughput, e.g. {@link OutputTokens#SERVER_USAGE_ELSE_CLIENT}
     */
    public Sweep(LlmClient client, TokenCounter tokenCounter, ToIntFunction<RequestRecord> outputTokens) {
        this(client, tokenCounter, summaryBy(outputTokens));
    }

    /**
     * Counting by {@code policy} as the summary does: a level's held window counts a request cut without usage at the
     * server's tokens per content event, as {@code output_tokens_delivered} does ({@link HeldConcurrency}).
     */
    public Sweep(LlmClient client, TokenCounter tokenCounter, OutputTokenPolicy policy) {
        this(client, tokenCounter, summaryBy(policy));
    }

    private Sweep(LlmClient client, TokenCounter tokenCounter, Function<LoadResult, LevelSummary> summary) {
        this.client = Objects.requireNonNull(client, "client");
        this.tokenCounter = Objects.requireNonNull(tokenCounter, "tokenCounter");
        this.summary = summary;
    }

    private static Function<LoadResult, LevelSummary> summaryBy(ToIntFunction<RequestRecord> outputTokens) {
        Objects.requireNonNull(outputTokens, "outputTokens");
        return result -> LevelSummary.of(result, outputTokens);
    }

    private static Function<LoadResult, LevelSummary> summaryBy(OutputTokenPolicy policy) {
        Objects.requireNonNull(policy, "policy");
        return result -> LevelSummary.of(result, policy);
    }

    public SweepResult run(List<RequestSpec> specs, SweepPlan plan) {
        return run(specs, plan, SweepListener.NONE);
    }

    /**
     * Runs every level on the calling thread; one sweep at a time per instance. A {@link #stopAll()} that came
     * before makes it end at once, with no level run.
     */
    public SweepResult run(List<RequestSpec> specs, SweepPlan plan, SweepListener listener) {
        return run(LevelWorkloads.same(specs), plan, listener);
    }

    /** As {@link #run(List, SweepPlan, SweepListener)}, each level sending {@code workloads.forLevel(i, 0)}. */
    public SweepResult run(LevelWorkloads workloads, SweepPlan plan, SweepListener listener) {
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(workloads, "workloads");
        SweepListener l = listener == null ? SweepListener.NONE : listener;
        synchronized (lock) {
            if (running) throw new IllegalStateException("a sweep is already in progress");
            running = true;
        }
        try {
            return runLevels(workloads, plan, l);
        } finally {
            synchronized (lock) {
                running = false;
                sweepStopRequested = false;
            }
        }
    }

    private SweepResult runLevels(LevelWorkloads workloads, SweepPlan plan, SweepListener l) {
        List<SweepLevelResult> done = new ArrayList<>();
        List<LoadSettings> levels = plan.levels();
        for (int i = 0; i < levels.size(); i++) {
            if (i > 0 && !pause(plan.pause().toNanos())) break;
            LoadRunner runner;
            synchronized (lock) {
                if (sweepStopRequested) break;
                runner = new LoadRunner(client, tokenCounter);
                current = runner;
                levelStopRequested = false;
            }
            LoadSettings level = levels.get(i);
            List<RequestSpec> specs = workloads.forLevel(i, 0); // drawn before the level starts
            l.onLevelStart(i, level);
            LoadResult result;
            try {
                result = runner.run(specs, level, l);
            } finally {
                synchronized (lock) {
                    current = null;
                }
            }
            if (Thread.currentThread().isInterrupted()) {
                synchronized (lock) {
                    sweepStopRequested = true;
                }
            }
            SweepLevelResult r = new SweepLevelResult(i, result, summary.apply(result),
                    result.stopped());
            done.add(r);
            l.onLevelEnd(r);
        }
        boolean stopped;
        synchronized (lock) {
            stopped = sweepStopRequested;
        }
        SaturationVerdict verdict = SaturationVerdict.evaluate(
                done.stream().map(SweepLevelResult::summary).toList(), plan.rules(), plan.levelName());
        return new SweepResult(plan, done, stopped, verdict);
    }

    /** First call during a level: abort the level and go on. Again (or between levels): end the sweep. Any thread. */
    public void stop() {
        synchronized (lock) {
            if (current != null && !levelStopRequested) {
                levelStopRequested = true;
                current.stop();
            } else {
                stopAllLocked();
            }
        }
    }

    /** Ends the whole sweep: the current level is aborted and no other starts. Any thread. */
    public void stopAll() {
        synchronized (lock) {
            stopAllLocked();
        }
    }

    private void stopAllLocked() {
        sweepStopRequested = true;
        if (current != null) current.stop();
        lock.notifyAll();
    }

    /** Sleeps between levels; false when the sweep was stopped meanwhile. */
    private boolean pause(long nanos) {
        long deadline = System.nanoTime() + nanos;
        synchronized (lock) {
            while (!sweepStopRequested) {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) return true;
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, remaining);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    sweepStopRequested = true;
                }
            }
            return false;
        }
    }
}

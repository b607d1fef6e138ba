package io.llmperf4j.run;

import com.hazelcast.cluster.Member;
import io.llmperf4j.distributed.ClientSpec;
import io.llmperf4j.distributed.ClockOffset;
import io.llmperf4j.distributed.ClusterForks;
import io.llmperf4j.distributed.Coordinator;
import io.llmperf4j.distributed.DistributedPlan;
import io.llmperf4j.distributed.MergedRun;
import io.llmperf4j.engine.Benchmark;
import io.llmperf4j.engine.BenchmarkListener;
import io.llmperf4j.engine.BenchmarkResult;
import io.llmperf4j.engine.LevelOutcome;
import io.llmperf4j.engine.client.HeaderWait;
import io.llmperf4j.engine.harness.HarnessResult;
import io.llmperf4j.engine.harness.HarnessRunner;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.LevelSummary;
import io.llmperf4j.engine.load.LevelWorkloads;
import io.llmperf4j.engine.load.LoadResult;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.RecordListener;
import io.llmperf4j.engine.load.SaturationVerdict;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * A sweep's levels run by the workers of a cluster, one distributed run per level, reported to a {@link ModelRun}
 * exactly as the engine's {@code Benchmark} reports a local sweep, so the level folders, sweep files, verdict and
 * report are the same. Each level uses as many workers as it can keep busy (concurrency 1 runs on one worker).
 * With iterations, each level is a harness run whose forks are distributed runs ({@link ClusterForks}), so the JMH
 * files and iteration CSV are the same too. {@link #stopLevel()} and {@link #stopAll()} take Ctrl-C as a local
 * benchmark does ({@link StopControl}).
 */
final class DistributedLevels implements Function<BenchmarkListener, BenchmarkResult> {
    private static final String NAME = "llmperf4j.token_benchmark";
    private final LoadPlan plan;
    private final Coordinator coordinator;
    private final List<Member> workers;
    private final Map<String, ClockOffset> clocks;
    private final ClientSpec client;
    private final LevelWorkloads workloads;
    private final TokenCounter tokenCounter;
    private final OutputTokenPolicy outputTokens;
    private final BiConsumer<Integer, MergedRun> beforeOutcome;
    private final Consumer<MergedRun> afterFork;
    private final String model;
    private final LongFunction<RecordListener> liveProgress;
    private final Consumer<Supplier<HeaderWait>> silentServer;
    private volatile boolean allStopped;
    private volatile boolean levelStopped;
    private volatile HarnessRunner currentHarness;

    /**
     * @param model      the model, a JMH param of each harness run
     * @param beforeOutcome told about each level's merged run before the model run hears its outcome and writes its
     *                      files (not with iterations)
     * @param afterFork  told about each harness fork's merged run
     * @param liveProgress given a level's (or harness fork's) shared start instant ({@link System#nanoTime()}), where
     *                     to tell each record a worker streams as it ends (progress; another thread)
     * @param silentServer given, at each level's (or fork's) start, the workers' requests waiting for their response
     *                     headers, for the progress line's silent-server note
     */
    DistributedLevels(LoadPlan plan, Coordinator coordinator, List<Member> workers, Map<String, ClockOffset> clocks,
                      ClientSpec client, LevelWorkloads workloads, TokenCounter tokenCounter,
                      OutputTokenPolicy outputTokens, String model,
                      BiConsumer<Integer, MergedRun> beforeOutcome, Consumer<MergedRun> afterFork,
                      LongFunction<RecordListener> liveProgress, Consumer<Supplier<HeaderWait>> silentServer) {
        this.plan = plan;
        this.coordinator = coordinator;
        this.workers = workers;
        this.clocks = clocks;
        this.client = client;
        this.workloads = workloads;
        this.tokenCounter = tokenCounter;
        this.outputTokens = outputTokens;
        this.beforeOutcome = beforeOutcome;
        this.afterFork = afterFork;
        this.model = model;
        this.liveProgress = liveProgress;
        this.silentServer = silentServer;
    }

    /** Ends the level running now (kept, marked aborted); the next one starts. Any thread. */
    void stopLevel() {
        levelStopped = true;
        HarnessRunner harness = currentHarness;
        if (harness != null) {
            harness.stop();
        } else {
            coordinator.stop();
        }
    }

    /** Ends the level running now and starts no other. Any thread. */
    void stopAll() {
        allStopped = true;
        stopLevel();
    }

    @Override
    public BenchmarkResult apply(BenchmarkListener listener) {
        List<LoadSettings> levels = plan.profile().levels(plan.warmup());
        List<LevelOutcome> outcomes = new ArrayList<>();
        for (int i = 0; i < levels.size() && !allStopped; i++) {
            if (i > 0 && !pause()) break;
            LoadSettings level = levels.get(i);
            listener.onLevelStart(i, level);
            LevelOutcome outcome = plan.harness() == null ? runLevel(i, level, listener)
                    : runHarnessLevel(i, level, listener);
            outcomes.add(outcome);
        }
        SaturationVerdict verdict = SaturationVerdict.evaluate(outcomes.stream().map(LevelOutcome::summary).toList(),
                outcomes.stream().map(LevelOutcome::aborted).toList(), plan.rules(), plan.levelName(),
                plan.levelUnit());
        return new BenchmarkResult(NAME, plan.profile(), outcomes, verdict, allStopped);
    }

    private LevelOutcome runLevel(int index, LoadSettings level, BenchmarkListener listener) {
        levelStopped = false;
        // a worker lost on an earlier level is not dealt a share it could never send: the level runs on the others
        List<Member> present = coordinator.stillMembers(workers);
        if (present.isEmpty()) {
            throw new RunFailedException("every load worker left the cluster before " + LoadPlan.label(level)
                    + ": the sweep cannot go on");
        }
        MergedRun merged = coordinator.run(plan(level, workloads.forLevel(index, 0)), present, clocks, tokenCounter,
                () -> allStopped || levelStopped, // a stop just before the run's shares went out is kept
                Coordinator.Live.feeding(liveProgress, silentServer));
        for (ScheduledRecord r : merged.timeline()) listener.onScheduledRecord(r);
        LoadResult result = merged.result(level);
        LevelOutcome outcome = new LevelOutcome(index, level, LevelSummary.of(result, outputTokens), merged.stopped(),
                Optional.of(result), Optional.empty());
        beforeOutcome.accept(index, merged);
        listener.onLevelOutcome(outcome);
        return outcome;
    }

    private LevelOutcome runHarnessLevel(int index, LoadSettings level, BenchmarkListener listener) {
        HarnessRunner runner = new HarnessRunner(new ClusterForks(coordinator, workers, clocks, client,
                plan.maxConnections(), tokenCounter, afterFork, liveProgress, silentServer), outputTokens);
        currentHarness = runner;
        if (allStopped) runner.stop();
        HarnessResult h;
        try {
            h = runner.run(NAME, Map.of("model", model), fork -> workloads.forLevel(index, fork), level,
                    plan.harness(), listener);
        } finally {
            currentHarness = null;
        }
        LevelOutcome outcome = new LevelOutcome(index, level, Benchmark.summaryOf(h), h.aborted(), Optional.empty(),
                Optional.of(h));
        listener.onLevelOutcome(outcome);
        return outcome;
    }

    /** One level as a distributed run: each prepared request once, as a local sweep level sends them. */
    private DistributedPlan plan(LoadSettings level, List<RequestSpec> specs) {
        if (level instanceof ClosedLoopSettings c) {
            int requests = Math.min(specs.size(), c.maxCompleted().orElse(specs.size()));
            return DistributedPlan.closedLoop(client.withMaxConnections(c.concurrency()), specs.subList(0, requests),
                    c.concurrency(), c.timeout(), c.warmup());
        }
        return DistributedPlan.openLoop(client.withMaxConnections(plan.maxConnections()), specs,
                (OpenLoopSettings) level);
    }

    /** Sleeps between levels; false when everything was stopped meanwhile. */
    private boolean pause() {
        long deadline = System.nanoTime() + plan.pause().toNanos();
        while (!allStopped && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(Math.min(50, Math.max(1, (deadline - System.nanoTime()) / 1_000_000L)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RunFailedException("interrupted between sweep levels");
            }
        }
        return !allStopped;
    }
}

package io.llmperf4j.cli;

import com.hazelcast.cluster.Member;
import io.llmperf4j.distributed.ClientSpec;
import io.llmperf4j.distributed.ClockOffset;
import io.llmperf4j.distributed.Coordinator;
import io.llmperf4j.distributed.DistributedPlan;
import io.llmperf4j.distributed.MergedRun;
import io.llmperf4j.engine.BenchmarkListener;
import io.llmperf4j.engine.BenchmarkResult;
import io.llmperf4j.engine.LevelOutcome;
import io.llmperf4j.engine.load.ClosedLoopResult;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.LevelSummary;
import io.llmperf4j.engine.load.LoadResult;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.SaturationVerdict;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * A sweep's levels run by the workers of a cluster, one distributed run per level, reported to a {@link ModelRun}
 * exactly as the engine's {@code Benchmark} reports a local sweep, so the level folders, sweep files, verdict and
 * report are the same. Each level uses as many workers as it can keep busy (concurrency 1 runs on one worker).
 */
final class DistributedLevels implements Function<BenchmarkListener, BenchmarkResult> {
    private final LoadPlan plan;
    private final Coordinator coordinator;
    private final List<Member> workers;
    private final Map<String, ClockOffset> clocks;
    private final ClientSpec client;
    private final List<RequestSpec> specs;
    private final TokenCounter tokenCounter;
    private final ToIntFunction<RequestRecord> outputTokens;
    private final BiConsumer<Integer, MergedRun> afterLevel;

    /** @param afterLevel told about each level's merged run after the model run wrote its files */
    DistributedLevels(LoadPlan plan, Coordinator coordinator, List<Member> workers, Map<String, ClockOffset> clocks,
                      ClientSpec client, List<RequestSpec> specs, TokenCounter tokenCounter,
                      ToIntFunction<RequestRecord> outputTokens, BiConsumer<Integer, MergedRun> afterLevel) {
        this.plan = plan;
        this.coordinator = coordinator;
        this.workers = workers;
        this.clocks = clocks;
        this.client = client;
        this.specs = specs;
        this.tokenCounter = tokenCounter;
        this.outputTokens = outputTokens;
        this.afterLevel = afterLevel;
    }

    @Override
    public BenchmarkResult apply(BenchmarkListener listener) {
        List<LoadSettings> levels = plan.profile().levels(plan.warmup());
        List<LevelOutcome> outcomes = new ArrayList<>();
        for (int i = 0; i < levels.size(); i++) {
            if (i > 0) pause();
            LoadSettings level = levels.get(i);
            listener.onLevelStart(i, level);
            MergedRun merged = coordinator.run(plan(level), workers, clocks, tokenCounter);
            for (ScheduledRecord r : merged.timeline()) listener.onScheduledRecord(r);
            LoadResult result = merged.openLoop() != null ? merged.openLoop()
                    : new ClosedLoopResult(merged.records(), merged.startEpochMillis(), merged.endEpochMillis(),
                    merged.durationNanos(), merged.requestsSent(), merged.timedOut(), merged.stopped(),
                    merged.warmupRecords(), merged.timeline(), merged.measureStartNanos(), (ClosedLoopSettings) level);
            LevelOutcome outcome = new LevelOutcome(i, level, LevelSummary.of(result, outputTokens),
                    merged.stopped(), Optional.of(result), Optional.empty());
            listener.onLevelOutcome(outcome);
            afterLevel.accept(i, merged);
            outcomes.add(outcome);
        }
        SaturationVerdict verdict = SaturationVerdict.evaluate(outcomes.stream().map(LevelOutcome::summary).toList(),
                plan.rules());
        return new BenchmarkResult("llmperf4j.token_benchmark", plan.profile(), outcomes, verdict, false);
    }

    /** One level as a distributed run: each prepared request once, as a local sweep level sends them. */
    private DistributedPlan plan(LoadSettings level) {
        if (level instanceof ClosedLoopSettings c) {
            int requests = Math.min(specs.size(), c.maxCompleted().orElse(specs.size()));
            return DistributedPlan.closedLoop(client.withMaxConnections(c.concurrency()), specs.subList(0, requests),
                    c.concurrency(), c.timeout(), c.warmup());
        }
        return DistributedPlan.openLoop(client.withMaxConnections(plan.maxConnections()), specs,
                (OpenLoopSettings) level);
    }

    private void pause() {
        try {
            Thread.sleep(plan.pause().toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RunFailedException("interrupted between sweep levels");
        }
    }
}

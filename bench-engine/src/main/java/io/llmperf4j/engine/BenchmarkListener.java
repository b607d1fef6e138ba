package io.llmperf4j.engine;

import io.llmperf4j.engine.harness.ForkResult;
import io.llmperf4j.engine.harness.HarnessListener;
import io.llmperf4j.engine.harness.HarnessResult;
import io.llmperf4j.engine.harness.HarnessSettings;
import io.llmperf4j.engine.harness.IterationResult;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.engine.load.SweepLevelResult;
import io.llmperf4j.engine.load.SweepListener;
import io.llmperf4j.model.RequestRecord;

import java.util.Map;
import java.util.Objects;

/**
 * Progress of a {@link Benchmark}: level events (every run is a sweep of one or more levels), harness events when a
 * harness is set, and records. Called on the benchmark's thread; every method does nothing by default.
 * {@link #onLevelStart} and {@link #onLevelOutcome} are called for every level in both modes; {@link #onLevelEnd}
 * (with the run's records) only without a harness.
 */
public interface BenchmarkListener extends SweepListener, HarnessListener {

    BenchmarkListener NONE = new BenchmarkListener() { };

    /** A level ended (completed or aborted), with or without a harness. */
    default void onLevelOutcome(LevelOutcome level) {
    }

    @Override
    default void onRecord(RequestRecord record) {
    }

    /**
     * Harness events to {@code harness} (for example {@link io.llmperf4j.engine.harness.JmhTextFormat#progress}),
     * everything else to {@code rest}.
     */
    static BenchmarkListener combine(HarnessListener harness, BenchmarkListener rest) {
        Objects.requireNonNull(harness, "harness");
        Objects.requireNonNull(rest, "rest");
        return new BenchmarkListener() {
            @Override
            public void onLevelStart(int index, LoadSettings level) {
                rest.onLevelStart(index, level);
            }

            @Override
            public void onLevelEnd(SweepLevelResult level) {
                rest.onLevelEnd(level);
            }

            @Override
            public void onLevelOutcome(LevelOutcome level) {
                rest.onLevelOutcome(level);
            }

            @Override
            public void onScheduledRecord(ScheduledRecord record) {
                rest.onScheduledRecord(record);
            }

            @Override
            public void onRunStart(String benchmark, Map<String, String> params, LoadSettings load,
                                   HarnessSettings settings) {
                harness.onRunStart(benchmark, params, load, settings);
                rest.onRunStart(benchmark, params, load, settings);
            }

            @Override
            public void onForkStart(int fork, int forks) {
                harness.onForkStart(fork, forks);
                rest.onForkStart(fork, forks);
            }

            @Override
            public void onIteration(IterationResult iteration) {
                harness.onIteration(iteration);
                rest.onIteration(iteration);
            }

            @Override
            public void onForkEnd(ForkResult fork) {
                harness.onForkEnd(fork);
                rest.onForkEnd(fork);
            }

            @Override
            public void onRunEnd(HarnessResult result) {
                harness.onRunEnd(result);
                rest.onRunEnd(result);
            }
        };
    }
}

package io.llmperf4j.engine;

import io.llmperf4j.engine.harness.HarnessResult;
import io.llmperf4j.engine.load.LevelSummary;
import io.llmperf4j.engine.load.LoadResult;
import io.llmperf4j.engine.load.LoadSettings;

import java.util.Objects;
import java.util.Optional;

/**
 * One level of a {@link Benchmark}: either a single run ({@code run}) or a harness run ({@code harness}).
 *
 * @param index    0-based
 * @param settings the level's load
 * @param summary  the level's figures (for a harness: over its measurement iterations)
 * @param aborted  a stop ended the level early
 * @param run      the run's records, without a harness
 * @param harness  the iterations and scores, with a harness
 */
public record LevelOutcome(int index, LoadSettings settings, LevelSummary summary, boolean aborted,
                           Optional<LoadResult> run, Optional<HarnessResult> harness) {
    public LevelOutcome {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(summary, "summary");
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(harness, "harness");
    }
}

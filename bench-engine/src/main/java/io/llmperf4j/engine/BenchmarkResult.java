package io.llmperf4j.engine;

import io.llmperf4j.engine.harness.HarnessResult;
import io.llmperf4j.engine.harness.JmhJsonFormat;
import io.llmperf4j.engine.harness.JmhTextFormat;
import io.llmperf4j.engine.load.LevelSummary;
import io.llmperf4j.engine.load.LoadProfile;
import io.llmperf4j.engine.load.SaturationVerdict;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link Benchmark} produced.
 *
 * @param name    the benchmark's name
 * @param profile the load profile
 * @param levels  every level that ran, in order
 * @param verdict the saturation verdict over the levels (meaningful for sweeps; one level gives no finding)
 * @param stopped a stop ended the benchmark before its last level
 */
public record BenchmarkResult(String name, LoadProfile profile, List<LevelOutcome> levels, SaturationVerdict verdict,
                              boolean stopped) {

    public BenchmarkResult {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(profile, "profile");
        levels = List.copyOf(levels);
        Objects.requireNonNull(verdict, "verdict");
    }

    public List<LevelSummary> summaries() {
        return levels.stream().map(LevelOutcome::summary).toList();
    }

    /** The harness results, one per level; empty without a harness. */
    public List<HarnessResult> harnessResults() {
        return levels.stream().map(LevelOutcome::harness).flatMap(Optional::stream).toList();
    }

    /** JMH's text output for the harness results. */
    public String jmhText() {
        return JmhTextFormat.render(harnessResults());
    }

    /** JMH's JSON for the harness results. */
    public String jmhJson() {
        return JmhJsonFormat.toJson(harnessResults());
    }

    public void writeJmhJson(Path file) throws IOException {
        JmhJsonFormat.write(harnessResults(), file);
    }
}

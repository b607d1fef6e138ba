package io.llmperf4j.engine.load;

import java.util.List;
import java.util.Objects;

/**
 * What a sweep produced.
 *
 * @param plan    what was asked for
 * @param levels  the levels that ran, in order (fewer than planned when the sweep was stopped)
 * @param stopped a sweep-wide stop (a second {@code stop()}, {@code stopAll()} or an interrupt) ended the sweep
 * @param verdict the saturation verdict over {@code levels}; aborted ones are not judged (a verdict given that
 *                judged them, as {@link SaturationVerdict#evaluate(List, SaturationRules)} over the summaries
 *                does, is judged again with the same rules)
 */
public record SweepResult(SweepPlan plan, List<SweepLevelResult> levels, boolean stopped, SaturationVerdict verdict) {
    public SweepResult {
        Objects.requireNonNull(plan, "plan");
        levels = List.copyOf(levels);
        Objects.requireNonNull(verdict, "verdict");
        if (levels.stream().anyMatch(SweepLevelResult::aborted)
                && verdict.levels().stream().noneMatch(SaturationVerdict.LevelVerdict::interrupted)) {
            verdict = SaturationVerdict.of(levels, verdict.rules());
        }
    }

    public List<LevelSummary> summaries() {
        return levels.stream().map(SweepLevelResult::summary).toList();
    }
}

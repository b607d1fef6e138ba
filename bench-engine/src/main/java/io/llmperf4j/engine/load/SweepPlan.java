package io.llmperf4j.engine.load;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The levels of a sweep and how to judge them.
 *
 * @param levels the load points in order, all closed-loop or all open-loop
 * @param pause  sleep between levels (not after the last), so the server drains its queues
 * @param rules  the saturation rules for the verdict
 */
public record SweepPlan(List<LoadSettings> levels, Duration pause, SaturationRules rules) {

    public SweepPlan {
        levels = List.copyOf(levels);
        if (levels.isEmpty()) throw new IllegalArgumentException("a sweep needs at least one level");
        Class<?> kind = levels.get(0).getClass();
        for (int i = 1; i < levels.size(); i++) {
            if (levels.get(i).getClass() != kind) {
                throw new IllegalArgumentException("levels[" + i + "] (" + levels.get(i).describe()
                        + ") is not of the same loop as levels[0] (" + levels.get(0).describe() + ")");
            }
        }
        Objects.requireNonNull(pause, "pause");
        if (pause.isNegative()) throw new IllegalArgumentException("pause (" + pause + ") must be >= 0");
        rules = rules == null ? SaturationRules.DEFAULT : rules;
    }

    public SweepPlan(List<? extends LoadSettings> levels, Duration pause) {
        this(List.copyOf(levels), pause, SaturationRules.DEFAULT);
    }

    /** "concurrency" or "rate". */
    public String levelName() {
        return levels.get(0).levelName();
    }
}

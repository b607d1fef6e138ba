package io.llmperf4j.run;

import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.SloObjective;
import io.llmperf4j.report.search.LevelSlo;
import io.llmperf4j.report.search.RunVerdict;
import io.llmperf4j.report.search.SweepSloVerdict;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code --slo} verdicts of one model's levels, for a sweep's table, files and answer and for {@code --slo-exit}:
 * each level's own verdict (its metrics' {@link RunVerdict}, judged at its end, as its summary's {@code slo} block),
 * not judged when a stop cut the level short (the sweep verdict's rule for aborted levels).
 */
final class SloVerdicts {
    private SloVerdicts() {
    }

    /** The level's verdict; null without objectives or without per-request results (iterations). */
    static LevelSlo of(ModelRun.LevelReport level) {
        if (level.metrics() == null) return null;
        return LevelSlo.of(level.metrics().sloVerdict().orElse(null), level.outcome().aborted());
    }

    /** The level's table cell ({@link LevelSlo#cell}); null without a verdict. */
    static String cell(ModelRun.LevelReport level) {
        LevelSlo v = of(level);
        return v == null ? null : v.cell();
    }

    /** The objectives judged, normalized ("ttft_p99<=500ms"); empty without any. */
    static List<String> objectives(MetricsConfig config) {
        return config.judgedObjectives().stream().map(SloObjective::key).toList();
    }

    /**
     * The sweep's answer over its levels' loads and verdicts (both in sweep order); null without objectives or when no
     * level has a verdict.
     */
    static SweepSloVerdict sweep(LoadPlan plan, List<String> objectives, List<Double> levels,
                                 List<LevelSlo> verdicts) {
        if (objectives.isEmpty()) return null;
        return SweepSloVerdict.of(objectives, plan.levelName(), plan.levelUnit(), levels, verdicts);
    }

    /**
     * The sweep's answer on the console, after its verdict, e.g.
     * <pre>
     * SLO met up to concurrency 2; missed at 4, 8
     *   concurrency 4 missed ttft_p90&lt;=300ms
     *   concurrency 8 missed ttft_p90&lt;=300ms, error_rate&lt;=1% (unresolved: judged by the estimates)
     * </pre>
     * Empty without objectives.
     */
    static List<String> sweepLines(LoadPlan plan, MetricsConfig config, List<ModelRun.LevelReport> levels) {
        List<LevelSlo> verdicts = levels.stream().map(SloVerdicts::of).toList();
        SweepSloVerdict sweep = sweep(plan, objectives(config), levels.stream().map(l -> l.summary().level())
                .toList(), verdicts);
        if (sweep == null) return List.of();
        List<String> lines = new ArrayList<>();
        lines.add(sweep.answer());
        for (int i = 0; i < levels.size(); i++) {
            LevelSlo v = verdicts.get(i);
            if (v != null && v.failed()) lines.add("  " + missedAt(levels.get(i).label(), v));
        }
        if (verdicts.stream().anyMatch(v -> v != null && v.judged() && Boolean.FALSE.equals(v.resolved()))) {
            lines.add("  (unresolved: a 95 % interval still straddles its limit, too few requests to tell (under "
                    + RunVerdict.MIN_SAMPLES + " never resolve); the level counts by its estimates; its summary's slo "
                    + "block has the intervals)");
        }
        return lines;
    }

    /** "concurrency 8 missed ttft_p90<=300ms, error_rate<=1% (unresolved: judged by the estimates)". */
    static String missedAt(String level, LevelSlo v) {
        return level + " missed " + String.join(", ", v.missed())
                + (Boolean.FALSE.equals(v.resolved()) ? " (unresolved: judged by the estimates)" : "");
    }
}

package io.llmperf4j.run;

import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.SaturationVerdict;
import io.llmperf4j.report.metrics.RunWarning;
import io.llmperf4j.report.metrics.WarningCode;
import io.llmperf4j.report.summary.SummaryConsoleReport;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * A model's run warnings (each level's {@link RunWarning}s, as its summary keeps them) on the console, compact. A
 * sweep's are merged by code, one line per code however many levels it fired at, with the first such level's
 * message: {@code [PREFIX_CACHE_REUSED] at concurrency 1, 2; concurrency 1: 91.1 % of the prompt tokens ...}; each
 * level's own message stays in its summary and in the sweep file's {@code levels[].warnings}. A level the sweep's
 * verdict already warns of too few successes leaves out its FEW_SAMPLES, which says the same.
 */
final class LevelWarnings {
    private LevelWarnings() {
    }

    /**
     * One level's warnings as the merge needs them.
     *
     * @param warnings       its summary's warnings; null when it has no summary (iterations, nothing recorded)
     * @param fewSamplesSaid the sweep's verdict already warns it of too few successes
     */
    record Level(LoadSettings settings, List<RunWarning> warnings, boolean fewSamplesSaid) {
    }

    /**
     * A sweep's levels' warnings, one line per code in {@link WarningCode} order (no "warning: " prefix).
     *
     * @param rateUnit a rate level's unit, "req/s" or "sessions/s" ({@link LoadPlan#levelUnit})
     */
    static List<String> sweep(List<ModelRun.LevelReport> levels, SaturationVerdict verdict, String rateUnit) {
        List<Level> merged = new ArrayList<>();
        for (int i = 0; i < levels.size(); i++) {
            ModelRun.LevelReport l = levels.get(i);
            merged.add(new Level(l.outcome().settings(), l.metrics() == null ? null : l.metrics().warnings(),
                    verdict != null && i < verdict.levels().size() && verdict.levels().get(i).fewSamples()));
        }
        return merged(merged, rateUnit);
    }

    /** As {@link #merged(List, String)}, a rate level's unit req/s. */
    static List<String> merged(List<Level> levels) {
        return merged(levels, "req/s");
    }

    /**
     * {@code levels}' warnings, one line per code in {@link WarningCode} order, with the first level's message; a rate
     * level named in {@code rateUnit} ("sessions/s" for sessions: their starts are the arrivals).
     */
    static List<String> merged(List<Level> levels, String rateUnit) {
        Map<WarningCode, List<LoadSettings>> firedAt = new EnumMap<>(WarningCode.class);
        Map<WarningCode, RunWarning> first = new EnumMap<>(WarningCode.class);
        for (Level level : levels) {
            if (level.warnings() == null) continue;
            for (RunWarning w : level.warnings()) {
                if (w.code() == WarningCode.FEW_SAMPLES && level.fewSamplesSaid()) continue;
                first.putIfAbsent(w.code(), w);
                firedAt.computeIfAbsent(w.code(), c -> new ArrayList<>()).add(level.settings());
            }
        }
        List<String> lines = new ArrayList<>();
        firedAt.forEach((code, at) -> {
            RunWarning w = first.get(code);
            String where = "at " + labels(at, rateUnit) + (at.size() > 1 ? "; " + label(at.get(0), rateUnit) : "")
                    + ": ";
            lines.add("[" + code + "] " + where + w.message()); // the first level's message, as the console says it
        });
        return lines;
    }

    /**
     * Under {@code --quiet}, where the report is not shown: the model's warnings as lines for stderr ("llmperf4j:
     * warning: ..."), the same a report would say: a plain run's one per warning, a sweep's verdict warnings and its
     * levels' merged; a comparison's named by model.
     */
    static List<String> quiet(ModelRun run, LoadPlan plan) {
        List<String> lines = new ArrayList<>();
        SaturationVerdict verdict = run.result() == null ? null : run.result().verdict();
        if (plan.multiLevel()) {
            if (verdict != null) lines.addAll(verdict.warnings());
            lines.addAll(sweep(run.levels(), verdict, plan.levelUnit()));
        } else {
            for (ModelRun.LevelReport level : run.levels()) {
                if (level.metrics() == null) continue;
                level.metrics().warnings().forEach(w -> lines.add(SummaryConsoleReport.line(w)));
            }
        }
        String model = plan.comparison() ? run.model() + ": " : "";
        return lines.stream().map(l -> "llmperf4j: warning: " + model + l).toList();
    }

    /** "concurrency 1, 2, 4", "rate 0.5, 1 req/s", "rate 2, 4 sessions/s": the levels as a table names them. */
    static String labels(List<LoadSettings> levels, String rateUnit) {
        if (levels.size() == 1) return label(levels.get(0), rateUnit);
        LoadSettings any = levels.get(0);
        String values = String.join(", ", levels.stream().map(l -> LoadSettings.formatLevel(l.level())).toList());
        return any.levelName().equals("rate") ? "rate " + values + " " + rateUnit : any.levelName() + " " + values;
    }

    /** "concurrency 8", "rate 2 req/s", "rate 2 sessions/s". */
    private static String label(LoadSettings level, String rateUnit) {
        return LoadSettings.label(level.levelName(), level.level(), rateUnit);
    }
}

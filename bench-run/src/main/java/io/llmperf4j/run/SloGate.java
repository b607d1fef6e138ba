package io.llmperf4j.run;

import io.llmperf4j.report.search.LevelSlo;
import io.llmperf4j.report.search.RunVerdict;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code --slo-exit}: whether a completed run failed its {@code --slo} objectives. It fails when any judged level
 * (the plain run's one, each level of a sweep, each model of a comparison) missed an objective: a CI gate fails on the
 * first load it cannot hold, and a sweep that should stop at some level is given the levels to run. A level a stop
 * cut short is not judged; an unresolved level (its intervals straddle a limit) counts by its estimates, as its own
 * verdict does. One line on err says which levels missed, or that every judged level met the objectives.
 */
final class SloGate {
    private SloGate() {
    }

    /** COMPLETED, or SLO_MISSED after naming the levels that missed; {@code runs} as they ran, in order. */
    static RunStatus judge(List<ModelRun> runs, LoadPlan plan, PrintStream err) {
        List<String> missed = new ArrayList<>();
        int judged = 0;
        for (ModelRun run : runs) {
            for (ModelRun.LevelReport level : run.levels()) {
                LevelSlo v = SloVerdicts.of(level);
                if (v == null || !v.judged()) continue;
                judged++;
                if (!v.failed()) continue;
                List<String> where = new ArrayList<>();
                if (plan.comparison()) where.add(run.model());
                if (plan.multiLevel()) where.add(level.label());
                missed.add((where.isEmpty() ? "" : String.join(" at ", where) + " ") + "("
                        + String.join(", ", v.missed()) + unresolved(v) + ")");
            }
        }
        if (!missed.isEmpty()) {
            // "missed (…)", "missed at concurrency 4 (…)", "missed by m2 (…)", "missed by m2 at concurrency 4 (…)"
            String where = plan.comparison() ? "by " : plan.multiLevel() ? "at " : "";
            err.println("llmperf4j: --slo-exit: SLO missed " + where + String.join(", ", missed) + ": exit code "
                    + RunStatus.SLO_MISSED.exitCode());
            return RunStatus.SLO_MISSED;
        }
        err.println(judged == 0 ? "llmperf4j: --slo-exit: no level was judged (each was stopped before its end)"
                : "llmperf4j: --slo-exit: SLO met" + (judged == 1 ? "" : " at every level judged (" + judged + ")"));
        return RunStatus.COMPLETED;
    }

    /** Why an unresolved level was judged by its estimates: too few requests, or an interval across a limit. */
    private static String unresolved(LevelSlo v) {
        if (!Boolean.FALSE.equals(v.resolved())) return "";
        if (v.requests() != null && v.requests() < RunVerdict.MIN_SAMPLES) {
            return "; unresolved: " + v.requests() + " requests, fewer than the " + RunVerdict.MIN_SAMPLES
                    + " that resolve an objective, so judged by the estimates";
        }
        return "; unresolved: an interval straddles its limit, so judged by the estimates";
    }
}

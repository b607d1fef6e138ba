package io.llmperf4j.report.search;

import java.util.List;

/**
 * One sweep level's {@code --slo} verdict in a word, as the sweep's files, console table and page show it: the
 * level's own verdict ({@link RunVerdict}, its summary's {@code slo} block), or not judged when a stop (Ctrl-C,
 * SIGTERM) cut the level short. That is the sweep verdict's rule for aborted levels: their cancelled requests are the
 * client's doing and their few samples say nothing of the service.
 *
 * @param status     {@value #MET}, {@value #MISSED} or {@value #NOT_JUDGED}
 * @param resolved   the verdict rests on the 95 % intervals (a resolved objective fails, or all are resolved); false:
 *                   unresolved, decided by the point estimates (as with fewer than {@value RunVerdict#MIN_SAMPLES}
 *                   requests); null when not judged
 * @param requests   the requests judged; null when not judged
 * @param missed     the objectives missed, in the order given; empty when met or not judged
 * @param unresolved the objectives whose interval straddles their limit (each decided by its estimate)
 */
public record LevelSlo(String status, Boolean resolved, Integer requests, List<String> missed,
                       List<String> unresolved) {

    public static final String MET = "met";
    public static final String MISSED = "missed";
    public static final String NOT_JUDGED = "not_judged";

    public LevelSlo {
        missed = missed == null ? List.of() : List.copyOf(missed);
        unresolved = unresolved == null ? List.of() : List.copyOf(unresolved);
    }

    /**
     * The verdict of a level judged as {@code judgement}; {@code aborted}: a stop cut it short, so it is not judged.
     * Null without a judgement (no objectives, or a level that keeps no requests: iterations).
     */
    public static LevelSlo of(LevelJudgement judgement, boolean aborted) {
        if (judgement == null) return null;
        if (aborted) return new LevelSlo(NOT_JUDGED, null, null, List.of(), List.of());
        List<String> missed = judgement.results().stream().filter(r -> !r.passed()).map(ObjectiveResult::objective)
                .toList();
        return new LevelSlo(judgement.passed() ? MET : MISSED, judgement.resolved(), judgement.samples(), missed,
                judgement.results().stream().filter(r -> !r.resolved()).map(ObjectiveResult::objective).toList());
    }

    /** Judged (not cut short by a stop). */
    public boolean judged() {
        return !NOT_JUDGED.equals(status);
    }

    /** Judged and an objective missed. */
    public boolean failed() {
        return MISSED.equals(status);
    }

    /** The table cell: "met", "missed", "met (unresolved)", "missed (unresolved)" or "not judged". */
    public String cell() {
        if (!judged()) return "not judged";
        return status + (Boolean.FALSE.equals(resolved) ? " (unresolved)" : "");
    }
}

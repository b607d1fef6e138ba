package io.llmperf4j.report.search;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * A sweep's answer to its {@code --slo} objectives, over the levels that ran (as a capacity search answers over the
 * levels it chose): the highest level up to which every judged level met every objective, and the levels that
 * missed. Levels are taken in load order, whatever order the sweep ran them in; a level a stop cut short is not judged
 * ({@link LevelSlo#NOT_JUDGED}). Each level's verdict is its own ({@link RunVerdict}): an unresolved level (its
 * intervals straddle a limit) counts by its estimate.
 *
 * @param objectives      the objectives, normalized ("ttft_p99<=500ms")
 * @param passed          no judged level missed an objective; null when no level was judged
 * @param metUpTo         the highest level below the lowest missing one (every judged level up to it met every
 *                        objective); the highest level when none missed; null when the lowest judged level missed
 *                        or none was judged
 * @param firstMissed     the lowest level that missed an objective; null when none did
 * @param missedLevels    every level that missed, in load order
 * @param notJudgedLevels the levels a stop cut short, in load order
 * @param answer          in words: "SLO met up to concurrency 8; missed at 16, 32"
 */
public record SweepSloVerdict(List<String> objectives, Boolean passed, Double metUpTo, Double firstMissed,
                              List<Double> missedLevels, List<Double> notJudgedLevels, String answer) {

    public SweepSloVerdict {
        objectives = List.copyOf(objectives);
        missedLevels = List.copyOf(missedLevels);
        notJudgedLevels = List.copyOf(notJudgedLevels);
    }

    /**
     * The answer over {@code levels} (each level's load, in sweep order) and their verdicts (same order; a null entry
     * is a level without one, left out); null when no level has a verdict.
     *
     * @param levelName "concurrency" or "rate"
     * @param loadUnit  "concurrency", "req/s" or "sessions/s" (a rate's unit is named after its levels)
     */
    public static SweepSloVerdict of(List<String> objectives, String levelName, String loadUnit, List<Double> levels,
                                     List<LevelSlo> verdicts) {
        if (levels.size() != verdicts.size()) {
            throw new IllegalArgumentException(levels.size() + " levels, " + verdicts.size() + " verdicts");
        }
        List<Integer> order = IntStream.range(0, levels.size()).filter(i -> verdicts.get(i) != null).boxed()
                .sorted(Comparator.comparingDouble(levels::get)).toList();
        if (order.isEmpty()) return null;
        List<Double> met = new ArrayList<>();
        List<Double> missed = new ArrayList<>();
        List<Double> notJudged = new ArrayList<>();
        for (int i : order) {
            LevelSlo v = verdicts.get(i);
            (!v.judged() ? notJudged : v.failed() ? missed : met).add(levels.get(i));
        }
        Double firstMissed = missed.isEmpty() ? null : missed.get(0);
        Double metUpTo = met.stream().filter(l -> firstMissed == null || l < firstMissed)
                .max(Double::compare).orElse(null);
        Words words = new Words(levelName, loadUnit == null || loadUnit.equals("concurrency") ? "" : " " + loadUnit);
        String answer;
        if (met.isEmpty() && missed.isEmpty()) {
            answer = "SLO not judged: every level was stopped before its end";
        } else if (missed.isEmpty()) {
            answer = "SLO met at every level" + (notJudged.isEmpty() ? "" : " judged") + ", up to "
                    + words.one(metUpTo);
        } else {
            answer = metUpTo != null ? "SLO met up to " + words.one(metUpTo) + "; missed at " + words.values(missed)
                    : "SLO missed at " + levelName + " " + words.values(missed)
                    + " (already at the lowest level judged)";
            List<Double> metAbove = met.stream().filter(l -> l > firstMissed).toList();
            if (!metAbove.isEmpty()) {
                answer += "; met again at " + words.values(metAbove) + ", above a level that missed (not counted)";
            }
        }
        if (!notJudged.isEmpty() && !(met.isEmpty() && missed.isEmpty())) {
            answer += "; not judged (stopped before its end): " + words.values(notJudged);
        }
        return new SweepSloVerdict(objectives, met.isEmpty() && missed.isEmpty() ? null : missed.isEmpty(), metUpTo,
                firstMissed, missed, notJudged, answer);
    }

    /** Levels in words: "concurrency 8", "16, 32"; "rate 2 req/s", "4, 8 req/s". */
    private record Words(String levelName, String unit) {
        String one(double level) {
            return levelName + " " + value(level) + unit;
        }

        String values(List<Double> levels) {
            return String.join(", ", levels.stream().map(Words::value).toList()) + unit;
        }

        /** As the sweep names its levels: 8, 0.5, 2.5. */
        static String value(double level) {
            return BigDecimal.valueOf(level).stripTrailingZeros().toPlainString();
        }
    }
}

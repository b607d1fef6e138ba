package io.llmperf4j.engine.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * What a sweep says about the service, by the seed script's rules ({@link SaturationRules}), computed only from
 * per-level summaries in sweep order (a pure function: {@link #evaluate}). Indices are positions in that list.
 *
 * <ul>
 *   <li>saturation point: the first level whose system output tok/s grew by less than
 *       {@code minThroughputGain} over the previous level, or fell (a level after one with 0 tok/s is not judged);</li>
 *   <li>TTFT red line: the first level whose TTFT p90 is at least {@code ttftJumpFactor} times the previous level's
 *       (levels without a finite, positive previous p90 are not judged);</li>
 *   <li>first failing level: the first with any failed request ("the service cannot hold that level");</li>
 *   <li>a warning for every level with fewer than {@code minSuccessfulSamples} successes.</li>
 * </ul>
 * A level a stop cut short (Ctrl-C, SIGTERM: {@link SweepLevelResult#aborted()}) is not judged: its failures are
 * mostly the requests the client cancelled, its throughput covers a window the client ended, its few samples say
 * nothing of the service. It is never the saturation point, the red line or the first failing level, nor the
 * baseline of the next level (that one is compared with the last level that ran to its end); {@link #describe}
 * names it as interrupted and not judged.
 *
 * @param levels            per-level findings, in order
 * @param saturationIndex   the saturation point, if any
 * @param ttftRedLineIndex  the TTFT red line, if any
 * @param firstFailingIndex the first level with failures, if any
 * @param warnings          one line per level with too few successful samples
 * @param rules             the rules applied
 */
public record SaturationVerdict(List<LevelVerdict> levels, OptionalInt saturationIndex, OptionalInt ttftRedLineIndex,
                                OptionalInt firstFailingIndex, List<String> warnings, SaturationRules rules) {

    /**
     * One level's findings.
     *
     * @param throughputGain output tok/s change over the previous level as a fraction (0.05 = +5 %); NaN for the
     *                       first level or after a level with 0 tok/s
     * @param ttftP90Ratio   TTFT p90 over the previous level's; NaN when not comparable
     * @param saturated      {@code throughputGain < minThroughputGain}
     * @param ttftJump       {@code ttftP90Ratio >= ttftJumpFactor}
     * @param failures       at least one request failed
     * @param fewSamples     fewer successes than {@code minSuccessfulSamples}
     * @param interrupted    a stop cut the level short: nothing above is judged for it (all false, NaN)
     */
    public record LevelVerdict(double level, double throughputGain, double ttftP90Ratio, boolean saturated,
                               boolean ttftJump, boolean failures, boolean fewSamples, boolean interrupted) {

        /** A level that ran to its end. */
        public LevelVerdict(double level, double throughputGain, double ttftP90Ratio, boolean saturated,
                            boolean ttftJump, boolean failures, boolean fewSamples) {
            this(level, throughputGain, ttftP90Ratio, saturated, ttftJump, failures, fewSamples, false);
        }
    }

    public SaturationVerdict {
        levels = List.copyOf(levels);
        warnings = List.copyOf(warnings);
        Objects.requireNonNull(rules, "rules");
    }

    /** Applies {@code rules} to {@code summaries} of levels that all ran to their end, in sweep order. */
    public static SaturationVerdict evaluate(List<LevelSummary> summaries, SaturationRules rules) {
        return evaluate(summaries, summaries.stream().map(s -> false).toList(), rules);
    }

    /** As {@link #evaluate(List, SaturationRules)}, its warnings naming each level as the sweep table does. */
    public static SaturationVerdict evaluate(List<LevelSummary> summaries, SaturationRules rules, String levelName) {
        return evaluate(summaries, summaries.stream().map(s -> false).toList(), rules, levelName);
    }

    /** Applies {@code rules} to a sweep's levels, in order; aborted ones are not judged. */
    public static SaturationVerdict of(List<SweepLevelResult> levels, SaturationRules rules) {
        return evaluate(levels.stream().map(SweepLevelResult::summary).toList(),
                levels.stream().map(SweepLevelResult::aborted).toList(), rules,
                levels.isEmpty() ? null : levels.get(0).result().settings().levelName());
    }

    /**
     * Applies {@code rules} to {@code summaries}, in sweep order; a level whose {@code interrupted} entry is true (a
     * stop cut it short) is not judged and is no level's baseline. Warnings name a level "level 8": a caller that
     * knows the levels' name gives it ({@link #evaluate(List, List, SaturationRules, String)}).
     */
    public static SaturationVerdict evaluate(List<LevelSummary> summaries, List<Boolean> interrupted,
                                             SaturationRules rules) {
        return evaluate(summaries, interrupted, rules, null);
    }

    /**
     * As {@link #evaluate(List, List, SaturationRules)}, its warnings naming each level as the sweep table does:
     * "concurrency 8", "rate 2 req/s" ({@link LoadSettings#label}).
     *
     * @param levelName "concurrency" or "rate" ({@link LoadSettings#levelName()}); null for "level 8"
     */
    public static SaturationVerdict evaluate(List<LevelSummary> summaries, List<Boolean> interrupted,
                                             SaturationRules rules, String levelName) {
        Objects.requireNonNull(rules, "rules");
        if (interrupted.size() != summaries.size()) {
            throw new IllegalArgumentException("one interrupted flag per level: " + interrupted.size() + " for "
                    + summaries.size());
        }
        List<LevelVerdict> verdicts = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        int saturation = -1;
        int redLine = -1;
        int failing = -1;
        int previous = -1; // the last level that ran to its end
        for (int i = 0; i < summaries.size(); i++) {
            LevelSummary cur = summaries.get(i);
            if (interrupted.get(i)) {
                verdicts.add(new LevelVerdict(cur.level(), Double.NaN, Double.NaN, false, false, false, false, true));
                continue;
            }
            double gain = Double.NaN;
            double ratio = Double.NaN;
            if (previous >= 0) {
                LevelSummary prev = summaries.get(previous);
                double p = prev.outputTokensPerSecond();
                double c = cur.outputTokensPerSecond();
                if (p > 0 && Double.isFinite(p)) gain = Double.isNaN(c) ? -1.0 : (c - p) / p;
                double pt = prev.ttftP90Millis();
                double ct = cur.ttftP90Millis();
                if (pt > 0 && Double.isFinite(pt) && Double.isFinite(ct)) ratio = ct / pt;
            }
            boolean saturated = gain < rules.minThroughputGain(); // false for NaN
            boolean jump = ratio >= rules.ttftJumpFactor();
            boolean failures = cur.failures() > 0;
            boolean few = cur.successes() < rules.minSuccessfulSamples();
            if (saturated && saturation < 0) saturation = i;
            if (jump && redLine < 0) redLine = i;
            if (failures && failing < 0) failing = i;
            if (few) {
                warnings.add(String.format(Locale.ROOT, "%s: only %d successful request%s (< %d): its "
                                + "percentiles are unstable; run more requests", label(levelName, cur.level()),
                        cur.successes(), cur.successes() == 1 ? "" : "s", rules.minSuccessfulSamples()));
            }
            verdicts.add(new LevelVerdict(cur.level(), gain, ratio, saturated, jump, failures, few, false));
            previous = i;
        }
        return new SaturationVerdict(verdicts, index(saturation), index(redLine), index(failing), warnings, rules);
    }

    public OptionalDouble saturationLevel() {
        return level(saturationIndex);
    }

    public OptionalDouble ttftRedLineLevel() {
        return level(ttftRedLineIndex);
    }

    public OptionalDouble firstFailingLevel() {
        return level(firstFailingIndex);
    }

    /**
     * The verdict as lines for a console, e.g. "saturation point: concurrency 20 (output tok/s +2.1 % over
     * concurrency 10; threshold 5 %)"; a rate is named as the sweep table names it, "rate 2 req/s".
     *
     * @param levelName "concurrency" or "rate"
     */
    public List<String> describe(String levelName) {
        List<String> lines = new ArrayList<>();
        if (saturationIndex.isPresent()) {
            int i = saturationIndex.getAsInt();
            lines.add(String.format(Locale.ROOT, "saturation point: %s (output tok/s %+.1f %% over %s; "
                            + "threshold %.1f %%)", name(levelName, i), 100 * levels.get(i).throughputGain(),
                    name(levelName, baseline(i)), 100 * rules.minThroughputGain()));
        } else {
            lines.add("saturation point: not reached (output tok/s grew by at least "
                    + String.format(Locale.ROOT, "%.1f %%", 100 * rules.minThroughputGain()) + " at every level)");
        }
        if (ttftRedLineIndex.isPresent()) {
            int i = ttftRedLineIndex.getAsInt();
            lines.add(String.format(Locale.ROOT, "TTFT red line: %s (TTFT p90 %.1fx %s; threshold %.1fx)",
                    name(levelName, i), levels.get(i).ttftP90Ratio(), name(levelName, baseline(i)),
                    rules.ttftJumpFactor()));
        } else {
            lines.add(String.format(Locale.ROOT, "TTFT red line: not crossed (no TTFT p90 jump of %.1fx or more)",
                    rules.ttftJumpFactor()));
        }
        if (firstFailingIndex.isPresent()) {
            lines.add("first level with failures: " + name(levelName, firstFailingIndex.getAsInt())
                    + " (the service cannot hold it)");
        } else {
            lines.add("failures: none" + (levels.stream().anyMatch(LevelVerdict::interrupted)
                    ? " in the levels judged" : ""));
        }
        for (int i = 0; i < levels.size(); i++) {
            if (levels.get(i).interrupted()) {
                lines.add("interrupted: " + name(levelName, i) + " was stopped (Ctrl-C or SIGTERM) and is not "
                        + "judged: its cancelled requests are not the service's failures");
            }
        }
        for (String w : warnings) lines.add("warning: " + w);
        return lines;
    }

    /** The level {@code index} was compared with: the last one before it that ran to its end. */
    private int baseline(int index) {
        for (int i = index - 1; i >= 0; i--) {
            if (!levels.get(i).interrupted()) return i;
        }
        return index - 1;
    }

    private String name(String levelName, int index) {
        return label(levelName, levels.get(index).level());
    }

    private static String label(String levelName, double level) {
        return levelName == null ? "level " + LoadSettings.formatLevel(level) : LoadSettings.label(levelName, level);
    }

    private OptionalDouble level(OptionalInt index) {
        return index.isPresent() ? OptionalDouble.of(levels.get(index.getAsInt()).level()) : OptionalDouble.empty();
    }

    private static OptionalInt index(int i) {
        return i < 0 ? OptionalInt.empty() : OptionalInt.of(i);
    }
}

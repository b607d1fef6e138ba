package io.llmperf4j.engine.load;

import io.llmperf4j.model.FailureCause;
import io.llmperf4j.model.ServerGone;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.function.IntFunction;
import java.util.stream.IntStream;

/**
 * What a sweep says about the service, by the seed script's rules ({@link SaturationRules}), computed only from
 * per-level summaries in sweep order (a pure function: {@link #evaluate}). Indices are positions in that list.
 *
 * <p>First, which levels are judged. A level is not judged, and is no level's baseline, when
 * <ul>
 *   <li>a stop cut it short (Ctrl-C, SIGTERM: {@link SweepLevelResult#aborted()}): its failures are mostly the requests
 *       the client cancelled, its throughput covers a window the client ended;</li>
 *   <li>fewer than {@code minSuccessfulSamples} requests succeeded (every request failing included: the user guide
 *       records such a level with its failure rate and empty numbers);</li>
 *   <li>a closed loop recorded fewer requests than its concurrency: it never had that many in flight.</li>
 * </ul>
 * Then, over the judged levels, each compared with the previous judged one:
 * <ul>
 *   <li>saturation point, closed loop: the first level whose system output tok/s grew by less than
 *       {@code minThroughputGain} over the previous judged level, or fell; with fewer than two judged levels nothing
 *       is compared and it is not judged;</li>
 *   <li>saturation point, open loop (a rate sweep): the first level whose successes ended, with 95 % confidence,
 *       at less than {@code 1 − minThroughputGain} of its drawn schedule's rate: the upper end of its share's
 *       interval ({@link LevelSummary#keepUp()}, {@link KeepUp}: the slope of the ends against the intended sends)
 *       below it. The service no longer keeps up with the offer, so the backlog grows. Arrivals that failed in a
 *       way that may be the service's (a 429, a 5xx, a timeout) were not served: the share judged is the
 *       successes' share of the arrivals times their ends' ({@link KeepUp#sustained}), so a server that sheds
 *       load with 429 and answers the rest on time falls behind too. A level whose interval
 *       straddles the threshold is too short to tell: never the saturation point, and {@link #describe} says so. A
 *       level whose schedule was cut (--timeout, {@link LevelSummary#arrivalsNotSent()}) is fitted on the successes
 *       due before the cut could censor them. A level is judged on its own, so even a one-level rate sweep has a
 *       verdict. Output tok/s growth is no test there: an open loop's offer, not the service, sets it while the
 *       service keeps up;</li>
 *   <li>TTFT red line: the first level whose TTFT p90 is at least {@code ttftJumpFactor} times the previous judged
 *       level's ({@link LevelSummary#redLineTtftP90Millis}: an uncapped open loop's from the actual send, which the
 *       client's own send lag does not move);</li>
 *   <li>first level with failures: the first level (judged or not, not interrupted) with a failure that may be the
 *       service's: a capacity sign ({@link FailureCause#CAPACITY_SIGNS}), the server going away
 *       ({@link FailureCause#SERVER_UNAVAILABLE}) or a failure of no known cause. When the server went away there
 *       (or was gone when it began) the verdict says so, not that the service cannot hold the level: a crash or a
 *       restart is no measure of its capacity. Connection refused and 4xx (the client's configuration),
 *       cancellations at the run's end and requests lost with a load worker are named, not counted against the
 *       service.</li>
 * </ul>
 * The server is read across levels: once a level was answered (a response's headers, content or a success), the
 * connections a later level saw refused before its own first answer ({@link LevelSummary#refusedUnanswered()}) are
 * the server gone, not the configuration ({@link LevelSummary#withServerGoneBefore()}); {@link #summaries} holds the
 * levels so read.
 * {@link #describe} names every level that was not judged and why.
 *
 * @param levels            per-level findings, in order
 * @param saturationIndex   the saturation point, if any
 * @param ttftRedLineIndex  the TTFT red line, if any
 * @param firstFailingIndex the first level with failures that may be the service's, if any
 * @param warnings          one line per level with too few successful samples (not judged)
 * @param rules             the rules applied
 * @param summaries         the levels judged, one per entry of {@code levels}, each read with the levels before it
 *                          (a server gone in an earlier level)
 */
public record SaturationVerdict(List<LevelVerdict> levels, OptionalInt saturationIndex, OptionalInt ttftRedLineIndex,
                                OptionalInt firstFailingIndex, List<String> warnings, SaturationRules rules,
                                List<LevelSummary> summaries) {

    /**
     * One level's findings.
     *
     * @param throughputGain output tok/s change over the previous judged level as a fraction (0.05 = +5 %); NaN for
     *                       the first judged level and levels not judged
     * @param ttftP90Ratio   TTFT p90 over the previous judged level's ({@link LevelSummary#redLineTtftP90Millis});
     *                       NaN when not comparable
     * @param saturated      the saturation rule holds (closed loop: {@code throughputGain < minThroughputGain}; open
     *                       loop: {@code achievedShare < 1 − minThroughputGain})
     * @param ttftJump       {@code ttftP90Ratio >= ttftJumpFactor}
     * @param failures       at least one failure that may be the service's (capacity or unknown cause)
     * @param fewSamples     fewer successes than {@code minSuccessfulSamples}
     * @param interrupted    a stop cut the level short: nothing above is judged for it (all false, NaN)
     * @param notJudged      why the level is not judged (interrupted, too few successes, never at its concurrency);
     *                       null when judged
     * @param achievedShare  an open loop's share of its offer sustained: 1 / the slope of its successes' ends against
     *                       their intended sends, times the successes' share of the arrivals
     *                       ({@link KeepUp#sustained()}; 1 = kept up); NaN otherwise
     * @param shareLow       its 95 % interval's lower end; NaN where {@code achievedShare} is
     * @param shareHigh      its upper end (+∞: unbounded); NaN where {@code achievedShare} is
     * @param keptUp         what the interval says against {@code 1 − minThroughputGain}: {@code saturated} is
     *                       {@link KeepUp.Reading#FELL_BEHIND}; {@link KeepUp.Reading#CANNOT_TELL} when it straddles
     *                       the threshold (or no fit was possible); {@link KeepUp.Reading#CLIENT_BEHIND} when only
     *                       the client's send lag failed it, {@link KeepUp.Reading#AT_CAP} when only waits for a
     *                       slot at its cap did (neither saturated nor a knee); null for a closed loop and a level not
     *                       judged
     */
    public record LevelVerdict(double level, double throughputGain, double ttftP90Ratio, boolean saturated,
                               boolean ttftJump, boolean failures, boolean fewSamples, boolean interrupted,
                               String notJudged, double achievedShare, double shareLow, double shareHigh,
                               KeepUp.Reading keptUp) {

        /** A level without a share's interval (a closed loop, or a share given as a figure). */
        public LevelVerdict(double level, double throughputGain, double ttftP90Ratio, boolean saturated,
                            boolean ttftJump, boolean failures, boolean fewSamples, boolean interrupted,
                            String notJudged, double achievedShare) {
            this(level, throughputGain, ttftP90Ratio, saturated, ttftJump, failures, fewSamples, interrupted,
                    notJudged, achievedShare, Double.NaN, Double.NaN, null);
        }

        /** A level that ran to its end. */
        public LevelVerdict(double level, double throughputGain, double ttftP90Ratio, boolean saturated,
                            boolean ttftJump, boolean failures, boolean fewSamples) {
            this(level, throughputGain, ttftP90Ratio, saturated, ttftJump, failures, fewSamples, false);
        }

        public LevelVerdict(double level, double throughputGain, double ttftP90Ratio, boolean saturated,
                            boolean ttftJump, boolean failures, boolean fewSamples, boolean interrupted) {
            this(level, throughputGain, ttftP90Ratio, saturated, ttftJump, failures, fewSamples, interrupted,
                    interrupted ? INTERRUPTED : null, Double.NaN);
        }

        /** Judged: neither interrupted nor set aside. */
        public boolean judged() {
            return notJudged == null;
        }
    }

    private static final String INTERRUPTED = "it was stopped (Ctrl-C or SIGTERM): its cancelled requests are not "
            + "the service's failures";

    public SaturationVerdict {
        levels = List.copyOf(levels);
        warnings = List.copyOf(warnings);
        Objects.requireNonNull(rules, "rules");
        summaries = List.copyOf(summaries);
        if (summaries.size() != levels.size()) {
            throw new IllegalArgumentException("one summary per level: " + summaries.size() + " for " + levels.size());
        }
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
        return evaluate(summaries, interrupted, rules, levelName, "req/s");
    }

    /**
     * As {@link #evaluate(List, List, SaturationRules, String)}, a rate level named in {@code rateUnit} in the
     * warnings and the server-gone words: "rate 2 sessions/s" for a sweep of sessions, whose arrivals start sessions
     * ({@link LoadSettings#label(String, double, String)}).
     */
    public static SaturationVerdict evaluate(List<LevelSummary> summaries, List<Boolean> interrupted,
                                             SaturationRules rules, String levelName, String rateUnit) {
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
        int previous = -1; // the last judged level
        boolean closedLoop = !"rate".equals(levelName);
        List<LevelSummary> read = new ArrayList<>(summaries.size());
        boolean answeredBefore = false;
        for (int i = 0; i < summaries.size(); i++) {
            LevelSummary cur = answeredBefore ? summaries.get(i).withServerGoneBefore() : summaries.get(i);
            read.add(cur);
            answeredBefore |= cur.answered();
            if (interrupted.get(i)) {
                verdicts.add(new LevelVerdict(cur.level(), Double.NaN, Double.NaN, false, false, false, false, true));
                continue;
            }
            boolean failures = counted(cur) > 0;
            boolean few = cur.successes() < rules.minSuccessfulSamples();
            if (failures && failing < 0) failing = i;
            if (few && cur.successes() > 0) {
                warnings.add(String.format(Locale.ROOT, "%s: only %d successful request%s (< %d): not judged, its "
                                + "percentiles are unstable; run more requests",
                        label(levelName, cur.level(), rateUnit),
                        cur.successes(), cur.successes() == 1 ? "" : "s", rules.minSuccessfulSamples()));
            }
            if (closedLoop && cur.held() != null && cur.held().shortLevel() && !few
                    && cur.total() >= cur.level()) {
                warnings.add(shortLevel(label(levelName, cur.level(), rateUnit), cur));
            }
            String notJudged = notJudged(cur, few, closedLoop && Double.isNaN(cur.scheduledRequestsPerSecond()),
                    rules, goneBefore(read, i, levelName, rateUnit));
            if (notJudged != null) {
                verdicts.add(new LevelVerdict(cur.level(), Double.NaN, Double.NaN, false, false, failures, few,
                        false, notJudged, Double.NaN));
                continue;
            }
            double gain = Double.NaN;
            double ratio = Double.NaN;
            if (previous >= 0) {
                LevelSummary prev = summaries.get(previous);
                // while each level held its concurrency: a short level's drain would read as saturation
                double p = prev.judgedOutputTokensPerSecond();
                double c = cur.judgedOutputTokensPerSecond();
                if (p > 0 && Double.isFinite(p)) gain = Double.isNaN(c) ? -1.0 : (c - p) / p;
                // an uncapped open loop's from the actual send: the client's own send lag is no latency of the
                // service's, and a lagging client at the baseline moved the red line a level up
                double pt = prev.redLineTtftP90Millis();
                double ct = cur.redLineTtftP90Millis();
                if (pt > 0 && Double.isFinite(pt) && Double.isFinite(ct)) ratio = ct / pt;
            }
            boolean open = Double.isFinite(cur.scheduledRequestsPerSecond());
            KeepUp fit = open ? cur.keepUp() : null;
            // an open loop: did the service keep up with the offer? Only a confident "no" is saturation
            KeepUp.Reading keptUp = !open ? null
                    : fit == null ? KeepUp.Reading.CANNOT_TELL : fit.reading(1 - rules.minThroughputGain());
            boolean saturated = open ? keptUp == KeepUp.Reading.FELL_BEHIND
                    : gain < rules.minThroughputGain(); // false for NaN
            boolean jump = ratio >= rules.ttftJumpFactor();
            if (saturated && saturation < 0) saturation = i;
            if (jump && redLine < 0) redLine = i;
            verdicts.add(new LevelVerdict(cur.level(), gain, ratio, saturated, jump, failures, few, false, null,
                    fit == null ? Double.NaN : fit.sustained(), fit == null ? Double.NaN : fit.sustainedLow(),
                    fit == null ? Double.NaN : fit.sustainedHigh(), keptUp));
            previous = i;
        }
        return new SaturationVerdict(verdicts, index(saturation), index(redLine), index(failing), warnings, rules,
                read);
    }

    /**
     * "concurrency 16: 20 requests are 1.2 rounds of 16, so its output tok/s (385.0) counts a drain with fewer in
     * flight; the verdict reads the 0.40 s it held 16 in flight (640.0 tok/s); 48 requests (3 rounds) or more read
     * it steadier".
     */
    private static String shortLevel(String name, LevelSummary s) {
        HeldConcurrency held = s.held();
        String c = LoadSettings.formatLevel(s.level());
        return String.format(Locale.ROOT, "%s: %d requests are %s of %s, so its output tok/s (%.1f) counts a drain "
                        + "with fewer in flight; the verdict reads the %.2f s it held %s in flight (%.1f tok/s); %d "
                        + "requests (%d rounds) or more read it steadier", name, s.total(), held.roundsInWords(), c,
                s.outputTokensPerSecond(), held.seconds(), c, held.tokensPerSecond(),
                (long) Math.ceil(HeldConcurrency.STEADY_ROUNDS * s.level()), HeldConcurrency.STEADY_ROUNDS);
    }

    /** Why {@code cur} cannot be judged, or null. */
    private static String notJudged(LevelSummary cur, boolean few, boolean closedLoop, SaturationRules rules,
                                    String goneBefore) {
        List<String> why = new ArrayList<>();
        if (cur.total() == 0) {
            why.add("no request was recorded");
        } else if (cur.successes() == 0) {
            why.add(String.format(Locale.ROOT, "every request failed (%d of %d: %s); its failure rate is recorded, "
                    + "its performance numbers are empty", cur.failures(), cur.total(), causes(cur, goneBefore)));
        } else if (few) {
            why.add(String.format(Locale.ROOT, "only %d successful request%s (< %d needed to judge a level)",
                    cur.successes(), cur.successes() == 1 ? "" : "s", rules.minSuccessfulSamples()));
        }
        if (closedLoop && cur.total() > 0 && cur.total() < cur.level()) {
            why.add(String.format(Locale.ROOT, "only %d request%s in all, so it never had %s in flight",
                    cur.total(), cur.total() == 1 ? "" : "s", LoadSettings.formatLevel(cur.level())));
        }
        return why.isEmpty() ? null : String.join("; ", why);
    }

    /** Failures that may be the service's: capacity signs, a server gone away and failures of no known cause. */
    private static int counted(LevelSummary s) {
        return LevelSummary.SERVICE_FAILURES.stream().mapToInt(s::failures).sum();
    }

    /** Failures that point away from the service: configuration, cancellations, lost workers. */
    private static int notCounted(LevelSummary s) {
        return s.failures() - counted(s);
    }

    /**
     * "24 configuration (connection refused or 4xx), 2 capacity (429, 408, 5xx, timeouts, ...)"; a cause whose
     * failures asked the client to come back says what they were in the console's words ({@link
     * LevelSummary#failedAsByCause}), "20 capacity (429, 408, 5xx, timeouts, ...; 20x 429 [Retry-After: 3-7 s; not
     * retried])".
     */
    static String causes(LevelSummary s) {
        return causes(s, null);
    }

    /**
     * As {@link #causes(LevelSummary)}, the server going away before the level worded by {@code goneBefore}
     * ({@link #goneBefore}); null when it was not gone before.
     */
    private static String causes(LevelSummary s, String goneBefore) {
        List<String> parts = new ArrayList<>();
        s.failuresByCause().forEach((cause, n) -> parts.add(n + " " + withFailedAs(switch (cause) {
            case CAPACITY -> "capacity (" + FailureCause.CAPACITY_SIGNS + ")";
            case CONFIGURATION -> "configuration (connection refused or 4xx)";
            case CANCELLED -> "cancelled at the run's end";
            case LOST -> "lost with a load worker";
            case OTHER -> "other (malformed or cut-short streams, client errors, or no known cause)";
            case SERVER_UNAVAILABLE -> "server unavailable (connections refused" + gone(s, goneBefore)
                    + ": restart, crash)";
        }, s.failedAsByCause().get(cause))));
        return String.join(", ", parts);
    }

    /**
     * A cause's words with what its failures were inside its parenthesis, after its definition: "capacity (429, 408,
     * ...; 20x 429 [Retry-After: 3-7 s; not retried])"; the words alone when {@code failedAs} is null.
     */
    private static String withFailedAs(String cause, String failedAs) {
        if (failedAs == null) return cause;
        return cause.endsWith(")") ? cause.substring(0, cause.length() - 1) + "; " + failedAs + ")"
                : cause + " (" + failedAs + ")";
    }

    /**
     * When the level's server went away, as its summary's warning says it ({@link ServerGone#when}): " after
     * successes", or " before any request succeeded but after it had begun answering 4 requests"; a level that found
     * it gone: ": the server was gone since concurrency 4".
     */
    private static String gone(LevelSummary s, String goneBefore) {
        ServerGone gone = s.serverGone();
        if (gone == null && goneBefore != null) return goneBefore;
        return gone != null && gone.beforeAnySuccess() ? " " + gone.when() : " after successes";
    }

    /**
     * ": the server was gone since concurrency 4" (the first earlier level where it went away), or ": the server was
     * gone after concurrency 1" (the last earlier level it answered), for level {@code i} of {@code read} whose
     * refused connections came before any answer of its own; null when there are none.
     */
    private static String goneBefore(List<LevelSummary> read, int i, String levelName, String rateUnit) {
        LevelSummary s = read.get(i);
        if (s.serverGone() != null || s.failures(FailureCause.SERVER_UNAVAILABLE) == 0) return null;
        for (int j = 0; j < i; j++) {
            if (read.get(j).serverGone() != null) return ": the server was gone since " + label(levelName,
                    read.get(j).level(), rateUnit);
        }
        for (int j = i - 1; j >= 0; j--) {
            if (read.get(j).answered()) {
                return ": the server was gone after " + label(levelName, read.get(j).level(), rateUnit);
            }
        }
        return null;
    }

    /**
     * The verdict's words for level {@code index} found with the server gone before it, "the server was gone since
     * concurrency 2" or "the server was gone after concurrency 1", as its lines say them; empty when the level's
     * refused connections are not so read (none, or the server went away during the level itself).
     *
     * @param levelName "concurrency" or "rate"; null for "level 8"
     */
    public Optional<String> goneBefore(int index, String levelName) {
        return goneBefore(index, levelName, "req/s");
    }

    /** As {@link #goneBefore(int, String)}, a rate level named in {@code rateUnit} ("sessions/s" for sessions). */
    public Optional<String> goneBefore(int index, String levelName, String rateUnit) {
        String words = goneBefore(summaries, index, levelName, rateUnit);
        return words == null ? Optional.empty() : Optional.of(words.substring(": ".length()));
    }

    /**
     * What the first level with failures says of the service: the server going away during it (or gone when it
     * began) is no measure of its capacity; capacity signs mean it cannot hold the level; "" otherwise.
     */
    private static String meaning(LevelSummary s) {
        if (s.failures(FailureCause.SERVER_UNAVAILABLE) > 0) {
            return s.serverGone() != null ? ": the server went away during it, not a limit of the service's capacity"
                    : ": the server was gone when it began, not a limit of the service's capacity";
        }
        return s.failures(FailureCause.CAPACITY) > 0 ? ": the service cannot hold it" : "";
    }

    /**
     * The knee: the last level that still grew before the saturation point, where to run. Closed loop: the judged
     * level the saturation point was compared with (every judged level before it grew by the threshold or more).
     * Open loop: the last judged level before it that kept up with its offer with confidence. Empty without a
     * saturation point, or when no such level ran before it.
     */
    public OptionalInt kneeIndex() {
        if (saturationIndex.isEmpty()) return OptionalInt.empty();
        int at = saturationIndex.getAsInt();
        for (int i = at - 1; i >= 0; i--) {
            LevelVerdict l = levels.get(i);
            if (!l.judged()) continue;
            if (l.keptUp() == null) return OptionalInt.of(i); // closed loop: the baseline
            if (l.keptUp() == KeepUp.Reading.KEPT_UP) return OptionalInt.of(i);
        }
        return OptionalInt.empty();
    }

    public OptionalDouble kneeLevel() {
        return level(kneeIndex());
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
     * concurrency 10; threshold 5 %)"; a rate is named as the sweep table names it, "rate 2 req/s". Every level not
     * judged gets a "not judged:" line saying why.
     *
     * @param levelName "concurrency" or "rate"
     */
    public List<String> describe(String levelName) {
        return describe(levelName, "req/s");
    }

    /**
     * As {@link #describe(String)}, a rate named in {@code rateUnit}: "sessions/s" for a sweep of sessions, whose
     * arrivals start sessions ("not judged: rate 2 sessions/s: ...").
     */
    public List<String> describe(String levelName, String rateUnit) {
        IntFunction<String> named = i -> name(levelName, rateUnit, i); // level i as the sweep table names it
        List<String> lines = new ArrayList<>();
        long judged = levels.stream().filter(LevelVerdict::judged).count();
        boolean openJudged = levels.stream().anyMatch(l -> l.judged() && l.keptUp() != null);
        boolean cannotTell = levels.stream().anyMatch(l -> l.keptUp() == KeepUp.Reading.CANNOT_TELL);
        boolean clientBehind = levels.stream().anyMatch(l -> l.keptUp() == KeepUp.Reading.CLIENT_BEHIND);
        boolean atCap = levels.stream().anyMatch(l -> l.keptUp() == KeepUp.Reading.AT_CAP);
        String nothingCompared = judged == 0 ? "not judged (no level could be judged)"
                : "not judged (one level judged: nothing to compare it with)";
        if (saturationIndex.isPresent()) {
            int i = saturationIndex.getAsInt();
            LevelVerdict l = levels.get(i);
            if (l.keptUp() != null) {
                LevelSummary s = summaries.get(i);
                String part = s.arrivalsNotSent() == 0 ? "" : String.format(Locale.ROOT, " of its arrivals due "
                        + "before the cut (%d not sent: its schedule was cut)", s.arrivalsNotSent());
                KeepUp fit = s.keepUp();
                if (fit.failed() > 0) {
                    lines.add(String.format(Locale.ROOT, "saturation point: %s (%s: the service sustained %.1f %% "
                                    + "(95 %% interval %s) of the scheduled rate%s; threshold %.1f %%)",
                            named.apply(i), arrivalsFailed(fit), 100 * fit.sustained(), fit.sustainedInterval(),
                            part, 100 * (1 - rules.minThroughputGain())));
                } else {
                    lines.add(String.format(Locale.ROOT, "saturation point: %s (successes ended at %.1f %% (95 %% "
                                    + "interval %s) of the scheduled rate%s: the service fell behind the offer; "
                                    + "threshold %.1f %%)", named.apply(i), 100 * l.achievedShare(),
                            fit.interval(), part, 100 * (1 - rules.minThroughputGain())));
                }
            } else {
                lines.add(String.format(Locale.ROOT, "saturation point: %s (output tok/s %+.1f %% over %s; "
                                + "threshold %.1f %%)", named.apply(i), 100 * l.throughputGain(),
                        named.apply(baseline(i)), 100 * rules.minThroughputGain()));
            }
            kneeLine(named).ifPresent(lines::add);
        } else if (openJudged && clientBehind) {
            lines.add(String.format(Locale.ROOT, "saturation point: none found (no judged level's service fell "
                    + "behind its offer with confidence; the client fell behind its schedule at %s: see below)",
                    levels.stream().filter(l -> l.keptUp() == KeepUp.Reading.CLIENT_BEHIND).count() == 1
                            ? "one" : "some"));
        } else if (openJudged && atCap) {
            lines.add(String.format(Locale.ROOT, "saturation point: none found (no judged level's service fell "
                    + "behind its offer with confidence; the --max-concurrency cap held back %s: see below)",
                    levels.stream().filter(l -> l.keptUp() == KeepUp.Reading.AT_CAP).count() == 1
                            ? "one" : "some"));
        } else if (openJudged && cannotTell) {
            lines.add(String.format(Locale.ROOT, "saturation point: none found (no judged level fell behind its "
                    + "offer with confidence; %s too short to tell whether it kept up: see below)",
                    levels.stream().filter(l -> l.keptUp() == KeepUp.Reading.CANNOT_TELL).count() == 1
                            ? "one was" : "some were"));
        } else if (openJudged && IntStream.range(0, levels.size()).anyMatch(i -> levels.get(i).judged()
                && summaries.get(i).keepUp() != null && summaries.get(i).keepUp().failed() > 0)) {
            lines.add(String.format(Locale.ROOT, "saturation point: not reached (every judged level sustained %.1f "
                    + "%% or more of its scheduled rate, its failed arrivals counted as not served)",
                    100 * (1 - rules.minThroughputGain())));
        } else if (openJudged) {
            lines.add(String.format(Locale.ROOT, "saturation point: not reached (every judged level's successes "
                    + "ended at %.1f %% or more of its scheduled rate)", 100 * (1 - rules.minThroughputGain())));
        } else if (judged < 2) {
            lines.add("saturation point: " + nothingCompared);
        } else {
            lines.add("saturation point: not reached (output tok/s grew by at least "
                    + String.format(Locale.ROOT, "%.1f %%", 100 * rules.minThroughputGain()) + " at every judged "
                    + "level)");
        }
        if (ttftRedLineIndex.isPresent()) {
            int i = ttftRedLineIndex.getAsInt();
            lines.add(String.format(Locale.ROOT, "TTFT red line: %s (TTFT p90 %s%.1fx %s; threshold %.1fx)",
                    named.apply(i), Double.isNaN(summaries.get(i).ttftP90FromSendMillis()) ? ""
                            : "from the actual send ", levels.get(i).ttftP90Ratio(), named.apply(baseline(i)),
                    rules.ttftJumpFactor()));
        } else if (judged < 2) {
            lines.add("TTFT red line: " + nothingCompared);
        } else {
            lines.add(String.format(Locale.ROOT, "TTFT red line: not crossed (no TTFT p90 jump of %.1fx or more)",
                    rules.ttftJumpFactor()));
        }
        if (firstFailingIndex.isPresent()) {
            int i = firstFailingIndex.getAsInt();
            LevelSummary s = summaries.get(i);
            lines.add(String.format(Locale.ROOT, "first level with failures: %s (%d of %d failed: %s)%s",
                    named.apply(i), s.failures(), s.total(),
                    causes(s, goneBefore(summaries, i, levelName, rateUnit)), meaning(s)));
        } else if (IntStream.range(0, levels.size())
                .anyMatch(i -> !levels.get(i).interrupted() && summaries.get(i).failures() > 0)) {
            lines.add("failures: none that point at the service (connection refused, 4xx, cancellations are named "
                    + "below)");
        } else {
            lines.add("failures: none" + (levels.stream().anyMatch(LevelVerdict::interrupted)
                    ? " in the levels judged" : ""));
        }
        for (int i = 0; i < levels.size(); i++) {
            LevelVerdict l = levels.get(i);
            LevelSummary s = summaries.get(i);
            if (l.interrupted()) {
                lines.add("interrupted: " + named.apply(i) + " was stopped (Ctrl-C or SIGTERM) and is not "
                        + "judged: its cancelled requests are not the service's failures");
            } else if (!l.judged()) {
                lines.add("not judged: " + named.apply(i) + ": " + l.notJudged());
            } else if (notCounted(s) > 0) {
                lines.add(String.format(Locale.ROOT, "failures not counted against the service: %s: %d of %d (%s)",
                        named.apply(i), s.failures(), s.total(),
                        causes(s, goneBefore(summaries, i, levelName, rateUnit))));
            }
            if (l.keptUp() == KeepUp.Reading.CANNOT_TELL) {
                lines.add(cannotTell(named.apply(i), s.keepUp(), rules));
            }
            if (l.keptUp() == KeepUp.Reading.CLIENT_BEHIND) lines.add(clientBehindLine(named.apply(i), s.keepUp()));
            if (l.keptUp() == KeepUp.Reading.AT_CAP) lines.add(atCapLine(named.apply(i), s.keepUp()));
            if (l.judged() && Double.isFinite(s.ttftP90ClientLagFactor())) {
                lines.add(clientLagLine(named.apply(i), s));
            }
            if (l.judged() && l.keptUp() == null && s.held() != null && s.held().shortLevel()) {
                lines.add("short level: " + shortLevel(named.apply(i), s));
            }
        }
        return lines;
    }

    /**
     * "knee: concurrency 4, the last level before output tok/s stopped growing: run there (concurrency 8 took E2E
     * p50 from 401.0 to 800.0 ms for output tok/s +0.1 %)"; a rate sweep's, "knee: rate 8 req/s, the last level
     * that kept up with its offer: run at or below it"; empty without a knee.
     */
    private Optional<String> kneeLine(IntFunction<String> named) {
        OptionalInt knee = kneeIndex();
        if (knee.isEmpty()) return Optional.empty();
        int k = knee.getAsInt();
        int at = saturationIndex.getAsInt();
        if (levels.get(k).keptUp() != null) {
            return Optional.of("knee: " + named.apply(k) + ", the last level that kept up with its offer: run at "
                    + "or below it");
        }
        LevelSummary before = summaries.get(k);
        LevelSummary past = summaries.get(at);
        String cost = Double.isFinite(before.e2eP50Millis()) && Double.isFinite(past.e2eP50Millis())
                ? String.format(Locale.ROOT, " (%s took E2E p50 from %.1f to %.1f ms for output tok/s %+.1f %%)",
                named.apply(at), before.e2eP50Millis(), past.e2eP50Millis(), 100 * levels.get(at).throughputGain())
                : "";
        return Optional.of("knee: " + named.apply(k) + ", the last level before output tok/s stopped growing: "
                + "run there" + cost);
    }

    /**
     * What a level's figures say when they cannot tell whether it kept up with its offer: "too short to tell whether
     * rate 2 req/s kept up: its successes ended at 97.3 % of the scheduled rate, 95 % interval 87.3-109.8 %, which
     * straddles the threshold 95.0 %; a longer level narrows it".
     *
     * @param subject "rate 2 req/s", "the open loop"
     * @param fit     the level's fit; null when none was possible
     */
    public static String cannotTell(String subject, KeepUp fit, SaturationRules rules) {
        return "too short to tell whether " + subject + " kept up: " + straddling(fit, rules);
    }

    /** The figures of a level too short to tell, after "too short to tell whether ... kept up: ". */
    private static String straddling(KeepUp fit, SaturationRules rules) {
        if (fit == null) return "fewer than 3 successes were due early enough to fit; a longer level has more";
        return String.format(Locale.ROOT, "%s, which straddles the threshold %.1f %%; a longer level narrows it",
                figures(fit), 100 * (1 - rules.minThroughputGain()));
    }

    /**
     * A fit's figures: "its successes ended at 99.6 % of the scheduled rate, 95 % interval 97.9-101.4 %"; with
     * failed arrivals, "18 of 60 arrivals failed (18x 429 [not retried]): the service sustained 68.3 % of the
     * scheduled rate, 95 % interval 56.8-79.8 % (the 70.0 % that succeeded ended at 97.6 % of it, 94.7-100.6 %)".
     */
    private static String figures(KeepUp fit) {
        if (fit.failed() == 0) {
            return String.format(Locale.ROOT, "its successes ended at %.1f %% of the scheduled rate, 95 %% interval "
                    + "%s", 100 * fit.share(), fit.interval());
        }
        return String.format(Locale.ROOT, "%s: the service sustained %.1f %% of the scheduled rate, 95 %% interval %s "
                        + "(the %.1f %% that succeeded ended at %.1f %% of it, %s)", arrivalsFailed(fit),
                100 * fit.sustained(), fit.sustainedInterval(), 100 * fit.succeeded(), 100 * fit.share(),
                fit.interval());
    }

    /**
     * A level only the client's send lag failed ({@link KeepUp.Reading#CLIENT_BEHIND}), after "the client fell behind
     * its schedule, not the service: ": "it sent late (send lag p90 236.0 ms, p99 310.2 ms): from the intended sends
     * its successes ended at 50.1 % of the scheduled rate, 95 % interval 49.7-50.5 %; from the actual sends at 99.9 %,
     * 95 % interval 99.6-100.2 %"; with failed arrivals, the sustained shares.
     */
    private static String clientBehind(KeepUp fit) {
        KeepUp.ActualSend actual = fit.actualSend();
        String fromActual = fromActualSends(fit);
        return String.format(Locale.ROOT, "it sent late (send lag p90 %.1f ms, p99 %.1f ms): from the intended sends "
                + "%s; from the actual sends %s", actual.sendLagP90Millis(), actual.sendLagP99Millis(),
                figures(fit), fromActual);
    }

    /**
     * The level judged from its actual sends, after "from the actual sends ": its share of the schedule, or with failed
     * arrivals the share the service sustained.
     */
    private static String fromActualSends(KeepUp fit) {
        KeepUp a = fit.actualSend().fit();
        return fit.failed() == 0
                ? String.format(Locale.ROOT, "at %.1f %%, 95 %% interval %s", 100 * a.share(), a.interval())
                : String.format(Locale.ROOT, "the service sustained %.1f %%, 95 %% interval %s", 100 * a.sustained(),
                a.sustainedInterval());
    }

    /**
     * A sweep's line on a level only the client's send lag failed: "client behind: rate 20 req/s: the client fell
     * behind its schedule, not the service: it sent late (...): ...; not a saturation point nor a knee: run the
     * client on a quieter machine or lower the rate".
     */
    /**
     * A level whose row's TTFT p90, from the intended send, carries the client's own send lag
     * ({@link LevelSummary#ttftP90ClientLagFactor}): "client lag: rate 4 req/s: its TTFT p90 from the intended send,
     * 119.7 ms, carries the client's own send lag (p90 ..., p99 90.6 ms): 82.3 ms from the actual send; the red
     * line compares TTFT from the actual send".
     */
    private static String clientLagLine(String subject, LevelSummary s) {
        KeepUp.ActualSend actual = s.keepUp() == null ? null : s.keepUp().actualSend();
        String lag = actual == null ? "" : String.format(Locale.ROOT, " (p90 %.1f ms, p99 %.1f ms)",
                actual.sendLagP90Millis(), actual.sendLagP99Millis());
        return String.format(Locale.ROOT, "client lag: %s: its TTFT p90 from the intended send, %.1f ms, carries the "
                        + "client's own send lag%s: %.1f ms from the actual send; the red line compares TTFT from the "
                        + "actual send", subject, s.ttftP90Millis(), lag, s.ttftP90FromSendMillis());
    }

    private static String clientBehindLine(String subject, KeepUp fit) {
        return "client behind: " + subject + ": the client fell behind its schedule, not the service: "
                + clientBehind(fit) + "; not a saturation point nor a knee: run the client on a quieter machine or "
                + "lower the rate";
    }

    /**
     * A level whose send lag was mostly waits for a slot at its cap ({@link KeepUp.Reading#AT_CAP}): "sent late
     * because 8 requests were in flight at the cap (--max-concurrency 8; send lag p90 236.0 ms, p99 310.2 ms): from
     * the intended sends its successes ended at 50.1 % of the scheduled rate, 95 % interval 49.7-50.5 %; from the
     * actual sends at 99.9 %, 95 % interval 99.6-100.2 %: the service kept pace with what it was sent, 8 at a time,
     * so the rate was the cap's (its requests in flight over their latency), neither a backlog of the service's nor
     * the client's lag".
     */
    private static String atCap(KeepUp fit) {
        KeepUp.ActualSend actual = fit.actualSend();
        int cap = actual.heldAtCap();
        String fromActual = fromActualSends(fit);
        return String.format(Locale.ROOT, "sent late because %d request%s in flight at the cap (--max-concurrency "
                        + "%d; send lag p90 %.1f ms, p99 %.1f ms): from the intended sends %s; from the actual sends "
                        + "%s: the service kept pace with what it was sent, %d at a time, so the rate was the cap's "
                        + "(its requests in flight over their latency), neither a backlog of the service's nor the "
                        + "client's lag", cap, cap == 1 ? " was" : "s were", cap,
                actual.sendLagP90Millis(), actual.sendLagP99Millis(), figures(fit), fromActual, cap);
    }

    /**
     * A sweep's line on a level its cap held back: "at the cap: rate 40 req/s: sent late because 8 requests were in
     * flight at the cap (...): ...; not a saturation point nor a knee: raise --max-concurrency to tell whether the
     * service keeps up with more in flight, or lower the rate".
     */
    private static String atCapLine(String subject, KeepUp fit) {
        return "at the cap: " + subject + ": " + atCap(fit) + "; not a saturation point nor a knee: " + RAISE_THE_CAP;
    }

    private static final String RAISE_THE_CAP = "raise --max-concurrency to tell whether the service keeps up with "
            + "more in flight, or lower the rate";

    /**
     * How the single run's keep-up verdict reads one level, for a capacity search's level: {@link
     * KeepUp.Reading#AT_CAP}, {@link KeepUp.Reading#CLIENT_BEHIND}, ...; null for a closed loop's.
     */
    public static KeepUp.Reading keptUp(LevelSummary s, SaturationRules rules) {
        return evaluate(List.of(s), rules, "rate").levels().get(0).keptUp();
    }

    /**
     * The single run's words on an open-loop level its keep-up verdict reads as held at its cap ({@link
     * KeepUp.Reading#AT_CAP}, {@link #keptUp}), for a capacity search's level: "held at the cap: sent late because 8
     * requests were in flight at the cap (...): ...; not a saturation point nor a knee: raise --max-concurrency to
     * tell ...".
     */
    public static String heldAtCap(LevelSummary s) {
        return "held at the cap: " + atCap(s.keepUp()) + "; not a saturation point nor a knee: " + RAISE_THE_CAP;
    }

    /**
     * "18 of 60 arrivals failed (18x 429 [Retry-After: 3-7 s; not retried])" of a fit with failed arrivals, their
     * words the console's ({@link KeepUp#failedAs}); empty without (or without a fit).
     */
    public static Optional<String> failedArrivals(KeepUp fit) {
        return fit == null || fit.failed() == 0 ? Optional.empty() : Optional.of(arrivalsFailed(fit));
    }

    private static String arrivalsFailed(KeepUp fit) {
        return String.format(Locale.ROOT, "%d of %d arrival%s failed (%s)", fit.failed(), fit.arrivals(),
                fit.arrivals() == 1 ? "" : "s", fit.failedAs());
    }

    /**
     * A single open-loop run's line on whether it kept up with its offer, by the rate sweep's rule:
     * "Kept up: yes: its successes ended at 99.6 % of the scheduled rate, 95 % interval 97.9-101.4 %, all of it at or
     * above the threshold 95.0 %", "Kept up: no: ..., all of it below the threshold 95.0 % (BEHIND_SCHEDULE)", or
     * "Kept up: too short to tell: ..., which straddles the threshold 95.0 %; a longer level narrows it"; with arrivals
     * that failed, "Kept up: no: 18 of 60 arrivals failed (18x 429 [not retried]): the service sustained 68.3 % of the
     * scheduled rate, 95 % interval 56.8-79.8 % (the 70.0 % that succeeded ended at 97.6 % of it, 94.7-100.6 %), all
     * of it below the threshold 95.0 % (BEHIND_SCHEDULE)" ({@link KeepUp#sustained}); when only the client's send lag
     * failed it ({@link KeepUp.Reading#CLIENT_BEHIND}), "Kept up: the client fell behind its schedule, not the service:
     * it sent late (send lag p90 ..., p99 ...): from the intended sends ...; from the actual sends at 99.9 %, 95 %
     * interval 99.6-100.2 %, at or above the threshold 95.0 % (SENT_LATE says how late)". Empty for a
     * closed loop, sessions, and a level the rule does not judge (too few successes).
     */
    public static Optional<String> keptUpLine(LevelSummary s, SaturationRules rules) {
        LevelVerdict v = evaluate(List.of(s), rules, "rate").levels().get(0);
        if (v.keptUp() == null) return Optional.empty();
        KeepUp fit = s.keepUp();
        String threshold = String.format(Locale.ROOT, "%.1f %%", 100 * (1 - rules.minThroughputGain()));
        if (v.keptUp() == KeepUp.Reading.CANNOT_TELL) {
            return Optional.of("Kept up: too short to tell: " + straddling(fit, rules));
        }
        if (v.keptUp() == KeepUp.Reading.CLIENT_BEHIND) {
            return Optional.of("Kept up: the client fell behind its schedule, not the service: " + clientBehind(fit)
                    + ", at or above the threshold " + threshold + " (SENT_LATE says how late)");
        }
        if (v.keptUp() == KeepUp.Reading.AT_CAP) {
            return Optional.of("Kept up: held at the cap: " + atCap(fit) + "; threshold " + threshold + ": "
                    + RAISE_THE_CAP + " (SENT_LATE says how late)");
        }
        String figures = figures(fit);
        return Optional.of(v.keptUp() == KeepUp.Reading.KEPT_UP
                ? "Kept up: yes: " + figures + ", all of it at or above the threshold " + threshold
                : "Kept up: no: " + figures + ", all of it below the threshold " + threshold + " (BEHIND_SCHEDULE)");
    }

    /** The level {@code index} was compared with: the last judged one before it. */
    private int baseline(int index) {
        for (int i = index - 1; i >= 0; i--) {
            if (levels.get(i).judged()) return i;
        }
        return index - 1;
    }

    /** Level {@code index} as the sweep table names it, a rate in {@code rateUnit}. */
    private String name(String levelName, String rateUnit, int index) {
        return label(levelName, levels.get(index).level(), rateUnit);
    }

    /** "level 8" without a level name, else as the sweep table names it, a rate in {@code rateUnit}. */
    private static String label(String levelName, double level, String rateUnit) {
        return levelName == null ? "level " + LoadSettings.formatLevel(level)
                : LoadSettings.label(levelName, level, rateUnit);
    }

    private OptionalDouble level(OptionalInt index) {
        return index.isPresent() ? OptionalDouble.of(levels.get(index.getAsInt()).level()) : OptionalDouble.empty();
    }

    private static OptionalInt index(int i) {
        return i < 0 ? OptionalInt.empty() : OptionalInt.of(i);
    }
}

package io.llmperf4j.report.compare;

import java.util.List;
import java.util.Locale;

/**
 * The comparison table: one row per compared statistic (baseline, candidate, delta, relative delta and its
 * bootstrap CI, marked {@code *} when the CI of the delta excludes 0), then the rule verdicts. Undefined values
 * print as {@code -}; every line ends with "\n".
 */
public final class ComparisonConsoleReport {

    private static final String ROW = "%-27s %-5s %11s %11s %11s %9s  %-21s %s%n";

    private ComparisonConsoleReport() {
    }

    /** The table without rules. */
    public static String render(RunComparison comparison) {
        return render(comparison, List.of());
    }

    /** The table and the verdict of each rule. */
    public static String render(RunComparison comparison, List<RuleResult> results) {
        StringBuilder out = new StringBuilder(2048);
        RunComparison.ComparedRun a = comparison.baseline();
        RunComparison.ComparedRun b = comparison.candidate();
        BootstrapConfig bootstrap = comparison.bootstrap();
        out.append(String.format(Locale.ROOT, "baseline:  %s (%d of %d requests ok, window %.3f s, from %s%s)%n",
                a.label(), a.succeeded(), a.recorded(), a.windowSeconds(), a.source(), unsent(a)));
        out.append(String.format(Locale.ROOT, "candidate: %s (%d of %d requests ok, window %.3f s, from %s%s)%n",
                b.label(), b.succeeded(), b.recorded(), b.windowSeconds(), b.source(), unsent(b)));
        out.append(String.format(Locale.ROOT, "bootstrap: %d resamples, %.0f%% CI, seed %d%n", bootstrap.resamples(),
                100 * bootstrap.confidenceLevel(), bootstrap.seed()));
        out.append(String.format(Locale.ROOT, ROW, "metric", "stat", "baseline", "candidate", "delta", "delta %",
                String.format(Locale.ROOT, "%.0f%% CI (delta %%)", 100 * bootstrap.confidenceLevel()), "unit"));
        boolean repeated = comparison.itlPerTokenRepeatsItl();
        int intervals = 0;
        for (MetricDelta d : comparison.deltas()) {
            if (repeated && d.metric() == CompareMetric.ITL_PER_TOKEN) continue;
            if (d.absoluteCi() != null && d.absoluteCi().hasWidth()) intervals++;
            out.append(String.format(Locale.ROOT, ROW, d.metric().label(), d.stat().key(), number(d.baseline()),
                    number(d.candidate()), signed(d.absoluteDelta()), percent(d.relativeDeltaPercent()), d.ciText(),
                    d.metric().unit()));
            if (d.metric() == CompareMetric.REQUEST_THROUGHPUT) {
                comparison.unsentLoad().ifPresent(line -> out.append(line).append('\n')); // beside the throughput
            }
        }
        if (repeated) {
            out.append("ITL (per token) rows left out: every content event carried one token, so they repeat ITL (per "
                    + "event) (itl_per_token rules still apply)\n");
        }
        comparison.sendLagDifference().ifPresent(line -> out.append(line).append('\n'));
        comparison.failuresNotTheServers().ifPresent(line -> out.append(line).append('\n'));
        out.append(legend(bootstrap, intervals));
        rules(out, "Rules:", results);
        return out.toString();
    }

    /**
     * The rule verdicts under {@code heading}, one a line; when some were not evaluated, a last line saying that
     * they fail the gate too and what to do about it. Nothing without rules.
     */
    static void rules(StringBuilder out, String heading, List<RuleResult> results) {
        if (results.isEmpty()) return;
        out.append(heading).append('\n');
        for (RuleResult result : results) out.append("  ").append(result.message()).append('\n');
        long notEvaluated = results.stream().filter(r -> r.verdict() == RuleResult.Verdict.NOT_EVALUATED).count();
        if (notEvaluated > 0) {
            out.append(String.format(Locale.ROOT, "%d of %d verdicts NOT EVALUATED: a gate never passes on a rule it "
                    + "could not evaluate, so these fail it (exit 3) as a crossed rule does; drop or replace those "
                    + "rules (each line says why and what there is instead)%n", notEvaluated, results.size()));
        }
    }

    /**
     * What {@code *} means: the interval's confidence and what was resampled. Requests within each run are
     * resampled, so the interval holds no run-to-run variation, and two runs of identical settings (an A/A
     * comparison) are often marked; the throughput and error-rate rows have no interval at all. Each row is its own
     * interval, without a correction for testing many: at a 95 % level about 1 in 20 rows with an interval is
     * marked by chance alone, so {@code intervals} (the rows printed with one) says how many to expect.
     */
    static String legend(BootstrapConfig bootstrap, int intervals) {
        double level = bootstrap.confidenceLevel();
        return String.format(Locale.ROOT, "* the %.0f %% CI of the delta excludes 0. The CI comes from resampling "
                + "requests within each run; run-to-run variation is not in it: repeat runs (--iterations/--forks) to "
                + "judge a change%n", 100 * level)
                + String.format(Locale.ROOT, "  each row is its own interval, not corrected for the %d rows with one. "
                + "Within one run's requests about %.0f %% of rows would be marked by chance alone, but separate runs "
                + "of an unchanged server differ by more than these intervals hold (run-to-run drift is not in them), "
                + "so between two runs many rows can be marked, several in every A/A pair; a * says these two sets of "
                + "requests differ, not that the server changed%n", intervals, 100 * (1 - level))
                + "  throughput and error-rate rows have no interval (one value per run): runs of an unchanged server "
                + "move them by a few percent\n"
                + "  \"no variation measured\": every value was the same on each side, so the interval has no width and "
                + "measures no noise; such a row is not marked *\n";
    }

    /**
     * The legend of iteration comparisons: there the samples are the measured iterations themselves, and the interval
     * is Welch's t at the harness's level.
     */
    static String iterationsLegend() {
        return "* the " + ConfidenceInterval.percent(WelchInterval.HARNESS_CONFIDENCE) + " % CI of the delta "
                + "excludes 0. The CI is Welch's t interval over the measured iterations of each side, so it holds the "
                + "variation between iterations (not between separate runs of llmperf4j); TTFT and TPOT mean are the "
                + "means of the iterations' means\n"
                + "  \"no variation measured\": every iteration gave the same value on each side, so Welch's interval "
                + "has no width (no spread to estimate the noise from); such a row is not marked *\n";
    }

    /** "; 70 of its 240 planned requests never sent (a load worker left mid-run)", or "". */
    static String unsent(RunComparison.ComparedRun side) {
        return side.unsent().map(u -> String.format(Locale.ROOT, "; %d of its %d planned requests never sent (a load "
                + "worker left mid-run)", u.notSent(), u.planned())).orElse("");
    }

    private static String number(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.3f", v) : "-";
    }

    private static String signed(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%+.3f", v) : "-";
    }

    private static String percent(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%+.1f%%", v) : "-";
    }
}

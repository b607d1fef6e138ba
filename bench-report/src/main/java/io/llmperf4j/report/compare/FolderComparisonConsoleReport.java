package io.llmperf4j.report.compare;

import io.llmperf4j.report.output.ResultsFolder;
import java.util.List;
import java.util.Locale;

/**
 * The console table of a {@link FolderComparison}. Two runs print exactly as {@link ComparisonConsoleReport}; sweeps
 * and comparisons of models print which units matched, then one row per unit and key statistic (TTFT p50/p90/p99,
 * TPOT p50/p90, ITL p90, E2E p50/p90/p99, output throughput, error rate): baseline, candidate, delta, relative delta
 * and its bootstrap CI, {@code *} when the CI of the delta excludes 0. Iterations print every statistic they have
 * (TTFT and TPOT mean, output and request throughput, error rate) with Welch's t interval, and a note on each level
 * with too few measured iterations for one. Then the rule verdicts.
 */
public final class FolderComparisonConsoleReport {

    /** The statistics shown per unit, in order. */
    static final List<String> KEY_STATS = List.of("ttft_p50", "ttft_p90", "ttft_p99", "tpot_p50", "tpot_p90",
            "itl_p90", "e2e_p50", "e2e_p90", "e2e_p99", "send_lag_p90", "ttft_from_intended_p50",
            "ttft_from_intended_p90", "ttft_from_intended_p99", "e2e_from_intended_p90", "output_throughput",
            "request_throughput", "error_rate");

    private static final String ROW = "%-22s %-27s %-5s %11s %11s %11s %9s  %-21s %s%n";

    private FolderComparisonConsoleReport() {
    }

    public static String render(FolderComparison comparison, List<RuleResult> results) {
        if (comparison.kind() == ResultsFolder.Kind.RUN) {
            return ComparisonConsoleReport.render(comparison.units().get(0).comparison(), results);
        }
        StringBuilder out = new StringBuilder(4096);
        String what = switch (comparison.kind()) {
            case SWEEP -> "Sweeps compared level by level";
            case ITERATIONS -> "Iterations compared level by level";
            case COMPARISON -> "Runs of several models compared model by model, level by level";
            case RUN -> throw new AssertionError();
        };
        out.append(what).append(" (matched by ").append(comparison.matchedByWords()).append("): ")
                .append(comparison.units().size()).append(" in both");
        if (!comparison.onlyInBaseline().isEmpty()) {
            out.append("; only in the baseline: ").append(String.join(", ", comparison.onlyInBaseline()));
        }
        if (!comparison.onlyInCandidate().isEmpty()) {
            out.append("; only in the candidate: ").append(String.join(", ", comparison.onlyInCandidate()));
        }
        out.append('\n');
        boolean iterations = comparison.kind() == ResultsFolder.Kind.ITERATIONS;
        BootstrapConfig bootstrap = comparison.units().get(0).comparison().bootstrap();
        double level = iterations ? WelchInterval.HARNESS_CONFIDENCE : bootstrap.confidenceLevel();
        if (iterations) {
            out.append("interval: Welch's t on the difference of the means over the measured iterations, ")
                    .append(ConfidenceInterval.percent(level)).append(" % (the harness's level, as its ± scores); "
                            + "none below ").append(WelchInterval.MIN_PER_SIDE).append(" iterations a side\n");
        } else {
            out.append(String.format(Locale.ROOT, "bootstrap: %d resamples, %.0f%% CI, seed %d%n",
                    bootstrap.resamples(), 100 * level, bootstrap.seed()));
        }
        out.append(String.format(Locale.ROOT, ROW, comparison.matchedByWords(), "metric", "stat", "baseline",
                "candidate", "delta", "delta %", ConfidenceInterval.percent(level) + "% CI (delta %)", "unit"));
        int intervals = 0;
        for (FolderComparison.Unit unit : comparison.units()) {
            RunComparison c = unit.comparison();
            if (iterations) {
                out.append(String.format(Locale.ROOT, "%s: baseline %s, candidate %s%n", unit.label(),
                        iterationsSide(c, true), iterationsSide(c, false)));
                IterationsComparison.tooFewIterations(c)
                        .ifPresent(note -> out.append(unit.label()).append(": ").append(note).append('\n'));
                for (MetricDelta d : c.deltas()) row(out, unit.label(), d, true);
                continue;
            }
            out.append(String.format(Locale.ROOT, "%s: baseline %d of %d ok (%s%s), candidate %d of %d ok (%s%s)%n",
                    unit.label(), c.baseline().succeeded(), c.baseline().recorded(), c.baseline().source(),
                    ComparisonConsoleReport.unsent(c.baseline()), c.candidate().succeeded(), c.candidate().recorded(),
                    c.candidate().source(), ComparisonConsoleReport.unsent(c.candidate())));
            for (String key : KEY_STATS) {
                for (MetricDelta d : c.deltas()) {
                    if (!d.ruleKey().equals(key)) continue;
                    row(out, unit.label(), d, false);
                    if (d.absoluteCi() != null && d.absoluteCi().hasWidth()) intervals++;
                }
            }
            c.sendLagDifference().ifPresent(line -> out.append(unit.label()).append(": ").append(line).append('\n'));
            c.unsentLoad().ifPresent(line -> out.append(unit.label()).append(": ").append(line).append('\n'));
            c.failuresNotTheServers()
                    .ifPresent(line -> out.append(unit.label()).append(": ").append(line).append('\n'));
        }
        if (iterations) {
            out.append(ComparisonConsoleReport.iterationsLegend());
        } else {
            out.append(ComparisonConsoleReport.legend(bootstrap, intervals));
            // the rows are the key statistics; a unit's own folders, compared as two runs, show all of them
            String unit = comparison.kind() == ResultsFolder.Kind.COMPARISON ? "model" : "level";
            out.append("Key statistics only; for every statistic of one ").append(unit).append(", compare that ")
                    .append(unit).append("'s two folders\n");
        }
        ComparisonConsoleReport.rules(out, "Rules (on every unit):", results);
        return out.toString();
    }

    /** "3 measured iterations (54 of 54 requests ok)": the iterations behind its mean output throughput. */
    private static String iterationsSide(RunComparison level, boolean baseline) {
        RunComparison.ComparedRun side = baseline ? level.baseline() : level.candidate();
        int iterations = level.delta(CompareMetric.OUTPUT_THROUGHPUT, CompareStat.VALUE)
                .map(d -> baseline ? d.baselineCount() : d.candidateCount()).orElse(0);
        return String.format(Locale.ROOT, "%d measured iteration%s (%d of %d requests ok)", iterations,
                iterations == 1 ? "" : "s", side.succeeded(), side.recorded());
    }

    private static void row(StringBuilder out, String unit, MetricDelta d, boolean iterations) {
        // iterations' error rate pools their requests: it has no interval, but is not "one per run" either
        String ci = iterations && d.absoluteCi() == null ? "-" : d.ciText();
        String stat = d.stat() == CompareStat.VALUE ? "value" : d.stat().key();
        out.append(String.format(Locale.ROOT, ROW, unit, d.metric().label(), stat, number(d.baseline()),
                number(d.candidate()), signed(d.absoluteDelta()), percent(d.relativeDeltaPercent()), ci,
                d.metric().unit()));
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

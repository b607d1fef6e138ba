package io.llmperf4j.report.compare;

import io.llmperf4j.report.output.IterationsFile;
import io.llmperf4j.report.output.ResultsFolder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Two sets of JMH-style iterations ({@code <base>_iterations.csv}, of a plain run or a sweep run with
 * {@code --iterations}) compared level by level. An iterations folder keeps one row per iteration, not per request,
 * so each level compares what its rows hold, over the measured iterations (warmup left out):
 * <ul>
 *   <li>{@code ttft_mean} and {@code tpot_mean}: the mean of the iterations' mean TTFT and TPOT (as the harness's
 *       {@code ttft_ms} and {@code tpot_ms} scores), and {@code output_throughput} and {@code request_throughput}:
 *       the mean of the iterations' tok/s and req/s; each delta with Welch's t interval ({@link WelchInterval}) at
 *       the harness's 99.9 %, none below {@link WelchInterval#MIN_PER_SIDE} measured iterations a side;</li>
 *   <li>{@code error_rate}: failed over recorded requests of all measured iterations, one value without interval,
 *       as for a run.</li>
 * </ul>
 * Percentiles, E2E, ITL and per-request tok/s need per-request values, which an iterations folder does not keep.
 */
final class IterationsComparison {

    /** Source name of iteration samples. */
    static final String SOURCE = "the iterations CSV (measured iterations)";

    /** The rules an iterations folder can evaluate, in table order. */
    static final List<String> RULE_KEYS = List.of("ttft_mean", "tpot_mean", "output_throughput",
            "request_throughput", "error_rate");

    private IterationsComparison() {
    }

    /** Matches the levels of two iterations files; the labels are "concurrency 4", "rate 2". */
    static FolderComparison compare(ResultsFolder a, ResultsFolder b, BootstrapConfig config) throws IOException {
        Map<String, List<IterationsFile.Row>> left = byLevel(IterationsFile.read(a.file()));
        Map<String, List<IterationsFile.Row>> right = byLevel(IterationsFile.read(b.file()));
        List<FolderComparison.Unit> units = new ArrayList<>();
        List<String> onlyLeft = new ArrayList<>();
        List<String> onlyRight = new ArrayList<>(right.keySet());
        for (Map.Entry<String, List<IterationsFile.Row>> e : left.entrySet()) {
            List<IterationsFile.Row> other = right.get(e.getKey());
            if (other == null) {
                onlyLeft.add(e.getKey());
                continue;
            }
            onlyRight.remove(e.getKey());
            units.add(new FolderComparison.Unit(e.getKey(), level(a.dir().getFileName() + "", e.getValue(),
                    b.dir().getFileName() + "", other, config)));
        }
        if (units.isEmpty()) {
            throw new IllegalArgumentException("no level is in both: the baseline has "
                    + String.join(", ", left.keySet()) + "; the candidate " + String.join(", ", right.keySet()));
        }
        return new FolderComparison(ResultsFolder.Kind.ITERATIONS, "level", units, onlyLeft, onlyRight);
    }

    private static Map<String, List<IterationsFile.Row>> byLevel(List<IterationsFile.Row> rows) {
        Map<String, List<IterationsFile.Row>> out = new LinkedHashMap<>();
        for (IterationsFile.Row r : rows) {
            if ("warmup".equals(r.iterationType())) continue;
            out.computeIfAbsent(r.loadUnit() + " " + r.level(), k -> new ArrayList<>()).add(r);
        }
        return out;
    }

    /** One level: the measured iterations {@code a} against {@code b}. */
    static RunComparison level(String labelA, List<IterationsFile.Row> a, String labelB, List<IterationsFile.Row> b,
                               BootstrapConfig config) {
        List<MetricDelta> deltas = new ArrayList<>();
        deltas.add(meanDelta(CompareMetric.TTFT, CompareStat.MEAN, a, b, IterationsFile.Row::ttftMeanMs));
        deltas.add(meanDelta(CompareMetric.TPOT, CompareStat.MEAN, a, b, IterationsFile.Row::tpotMeanMs));
        deltas.add(meanDelta(CompareMetric.OUTPUT_THROUGHPUT, CompareStat.VALUE, a, b,
                IterationsFile.Row::outputTokS));
        deltas.add(meanDelta(CompareMetric.REQUEST_THROUGHPUT, CompareStat.VALUE, a, b,
                IterationsFile.Row::requestsS));
        double ea = errorRate(a);
        double eb = errorRate(b);
        deltas.add(new MetricDelta(CompareMetric.ERROR_RATE, CompareStat.VALUE, ea, eb, recorded(a), recorded(b),
                eb - ea, relative(ea, eb), null, null));
        return new RunComparison(side(labelA, a), side(labelB, b), config, deltas);
    }

    /**
     * Why {@code rule} cannot be evaluated on iterations, and what to use instead: the rest of its NOT EVALUATED
     * line.
     */
    static String unavailable(FailIfRule rule) {
        String what = rule.metric().key() + (rule.stat() == CompareStat.VALUE ? "" : " " + rule.stat().key());
        String instead = rule.metric() == CompareMetric.TTFT || rule.metric() == CompareMetric.TPOT
                ? "use " + rule.metric().key() + "_mean (the mean of the iterations' means)"
                : "rules on iterations can use " + String.join(", ", RULE_KEYS);
        return "iterations keep one row per iteration (its means), not per-request values, so no " + what + ": "
                + instead + "; per-request statistics need a run without --iterations";
    }

    private static RunComparison.ComparedRun side(String label, List<IterationsFile.Row> rows) {
        int ok = rows.stream().mapToInt(IterationsFile.Row::requestsCompleted).sum();
        double seconds = rows.stream().mapToDouble(IterationsFile.Row::durationS).sum();
        return new RunComparison.ComparedRun(label + " (" + rows.size() + " iterations)", recorded(rows), ok, seconds,
                SOURCE);
    }

    private static int recorded(List<IterationsFile.Row> rows) {
        return rows.stream().mapToInt(r -> r.requestsCompleted() + r.requestsFailed()).sum();
    }

    private static double errorRate(List<IterationsFile.Row> rows) {
        int recorded = recorded(rows);
        return recorded == 0 ? Double.NaN
                : (double) rows.stream().mapToInt(IterationsFile.Row::requestsFailed).sum() / recorded;
    }

    private static MetricDelta meanDelta(CompareMetric metric, CompareStat stat, List<IterationsFile.Row> rowsA,
                                         List<IterationsFile.Row> rowsB, Function<IterationsFile.Row, Double> value) {
        double[] a = values(rowsA, value);
        double[] b = values(rowsB, value);
        double ma = Bootstrap.estimate(a, CompareStat.MEAN);
        double mb = Bootstrap.estimate(b, CompareStat.MEAN);
        ConfidenceInterval[] ci = WelchInterval.of(a, b, WelchInterval.HARNESS_CONFIDENCE);
        return new MetricDelta(metric, stat, ma, mb, a.length, b.length, mb - ma, relative(ma, mb), ci[0], ci[1]);
    }

    private static double[] values(List<IterationsFile.Row> rows, Function<IterationsFile.Row, Double> value) {
        return rows.stream().map(value).filter(Objects::nonNull).mapToDouble(Double::doubleValue)
                .filter(Double::isFinite).sorted().toArray();
    }

    private static double relative(double a, double b) {
        return a != 0 && Double.isFinite(a) && Double.isFinite(b) ? (b - a) / a * 100.0 : Double.NaN;
    }

    /**
     * The note for a level with fewer than {@link WelchInterval#MIN_PER_SIDE} measured iterations on a side, whose
     * deltas have no interval and no {@code *}; empty otherwise.
     */
    static Optional<String> tooFewIterations(RunComparison level) {
        return level.delta(CompareMetric.OUTPUT_THROUGHPUT, CompareStat.VALUE)
                .filter(d -> d.baselineCount() < WelchInterval.MIN_PER_SIDE
                        || d.candidateCount() < WelchInterval.MIN_PER_SIDE)
                .map(d -> "too few measured iterations for an interval (" + d.baselineCount() + " and "
                        + d.candidateCount() + "; at least " + WelchInterval.MIN_PER_SIDE + " a side): no CI, no *, "
                        + "the deltas may be noise; run more with --iterations (or --forks)");
    }
}

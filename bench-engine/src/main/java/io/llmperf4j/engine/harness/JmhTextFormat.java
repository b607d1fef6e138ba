package io.llmperf4j.engine.harness;

import io.llmperf4j.engine.load.LoadSettings;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * JMH's human-readable output for harness results: run header, one line per iteration
 * ({@code # Warmup Iteration   1: 812.345 tok/s}, {@code Iteration   1: …}), a {@code Result "…":} block with
 * score ± 99.9 % error and confidence interval, and the summary table
 * {@code Benchmark (params) Mode Cnt Score Error Units}. {@link #progress} prints the same as it happens.
 */
public final class JmhTextFormat {

    private static final String REMEMBER = """
            REMEMBER: The numbers below are just data. To gain reusable insights, you need to follow up on
            why the numbers are the way they are: check the server's batch sizes and queue, the client's own
            send lag, and whether the requests ended early (finish_reason "stop" inflates tok/s). Do not assume
            the numbers tell you what you want them to tell.
            """;

    /** Under the table when its Error is blank for want of scores, as JMH leaves it blank without a word. */
    static final String ONE_ITERATION = "(one measured iteration: no interval, so no Error; the ± error needs "
            + "2 scores or more: --iterations 2 or more, or --forks 2 or more)";
    static final String FEWER_THAN_TWO_SCORES = "(Error is blank where Cnt is below 2: fewer than 2 scores give no "
            + "interval; an iteration in which no request succeeded has no TTFT or TPOT score)";

    /** Under the table for a result whose every measured request failed: its NaN scores are no measurement. */
    static final String NO_SCORE = "(no score, Cnt 0 and NaN";

    private JmhTextFormat() {
    }

    /** Everything, for results already collected: each run's header, iterations and result, then one table. */
    public static String render(List<HarnessResult> results) {
        StringBuilder out = new StringBuilder();
        for (HarnessResult r : results) {
            out.append(header(r.benchmark(), r.params(), r.load(), r.settings()));
            for (ForkResult f : r.forks()) {
                out.append(forkLine(f.fork(), r.settings().forks()));
                for (IterationResult i : f.warmup()) out.append(iterationLines(i));
                for (IterationResult i : f.measurement()) out.append(iterationLines(i));
                if (f.aborted()) out.append("<stopped: the fork ended early; unfinished iterations dropped>\n");
            }
            out.append('\n').append(resultBlock(r));
        }
        out.append('\n').append(summaryTable(results));
        return out.toString();
    }

    /** A listener that prints as the harness runs; call {@link #summaryTable} at the end. */
    public static HarnessListener progress(PrintStream out) {
        return new HarnessListener() {
            @Override
            public void onRunStart(String benchmark, Map<String, String> params, LoadSettings load,
                                   HarnessSettings settings) {
                out.print(header(benchmark, params, load, settings));
                out.flush();
            }

            @Override
            public void onForkStart(int fork, int forks) {
                out.print(forkLine(fork, forks));
                out.flush();
            }

            @Override
            public void onIteration(IterationResult iteration) {
                out.print(iterationLines(iteration));
                out.flush();
            }

            @Override
            public void onRunEnd(HarnessResult result) {
                out.print('\n');
                out.print(resultBlock(result));
                out.flush();
            }
        };
    }

    static String header(String benchmark, Map<String, String> params, LoadSettings load, HarnessSettings s) {
        StringBuilder b = new StringBuilder();
        b.append("# llmperf4j harness (JMH-style)\n");
        b.append("# VM version: JDK ").append(System.getProperty("java.version")).append(", ")
                .append(System.getProperty("java.vm.name")).append(", ").append(System.getProperty("java.vm.version"))
                .append('\n');
        b.append("# Warmup: ").append(iterations(s.warmup())).append('\n');
        b.append("# Measurement: ").append(iterations(s.measurement())).append('\n');
        b.append("# Load: ").append(load.describe()).append('\n');
        b.append("# Forks: ").append(s.forks()).append(s.forks() == 1 ? " fork" : " forks")
                .append(" (a fork is a fresh client and connection pool)\n");
        b.append("# Benchmark mode: Throughput, output tokens/time (ttft_ms, tpot_ms: Average time per request)\n");
        b.append("# Benchmark: ").append(benchmark).append('\n');
        if (!params.isEmpty()) {
            List<String> ps = new ArrayList<>();
            params.forEach((k, v) -> ps.add(k + " = " + v));
            b.append("# Parameters: (").append(String.join(", ", ps)).append(")\n");
        }
        b.append('\n');
        return b.toString();
    }

    static String forkLine(int fork, int forks) {
        return "# Fork: " + fork + " of " + forks + "\n";
    }

    static String iterationLines(IterationResult i) {
        String prefix = i.type() == IterationType.WARMUP ? "# Warmup Iteration " : "Iteration ";
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%s%3d: %s tok/s", prefix, i.index(), num(i.outputTokensPerSecond())));
        if (i.type() == IterationType.MEASUREMENT) {
            String pad = " ".repeat(prefix.length() + 5);
            b.append('\n').append(pad).append(String.format(Locale.ROOT, "%-16s%s req/s", "requests_per_s:",
                    num(i.requestsPerSecond())));
            b.append('\n').append(pad).append(String.format(Locale.ROOT, "%-16s%s ms", "ttft_ms:",
                    num(i.meanTtftMillis())));
            b.append('\n').append(pad).append(String.format(Locale.ROOT, "%-16s%s ms", "tpot_ms:",
                    num(i.meanTpotMillis())));
            if (i.requestsFailed() > 0) {
                b.append('\n').append(pad).append(String.format(Locale.ROOT, "%-16s%d", "failed:",
                        i.requestsFailed()));
            }
        } else {
            b.append(String.format(Locale.ROOT, ", %s req/s", num(i.requestsPerSecond())));
        }
        return b.append('\n').toString();
    }

    static String resultBlock(HarnessResult r) {
        MetricResult p = r.primary();
        ScoreStatistics s = p.statistics();
        StringBuilder b = new StringBuilder();
        b.append("Result \"").append(r.benchmark()).append("\":\n");
        if (r.everyRequestFailed()) {
            b.append(String.format(Locale.ROOT, "  no score: every measured request failed (%d of %d)%n",
                    r.requestsFailed(), r.requestsFailed()));
        } else if (s.n() >= 2) {
            b.append(String.format(Locale.ROOT, "  %s ±(99.9%%) %s %s [Average]%n", num(s.mean()), num(s.error()),
                    p.unit()));
            b.append(String.format(Locale.ROOT, "  (min, avg, max) = (%s, %s, %s), stdev = %s%n", num(s.min()),
                    num(s.mean()), num(s.max()), num(s.standardDeviation())));
            double[] ci = s.confidenceInterval();
            b.append(String.format(Locale.ROOT, "  CI (99.9%%): [%s, %s] (assumes normal distribution)%n",
                    num(ci[0]), num(ci[1])));
        } else {
            b.append(String.format(Locale.ROOT, "  %s %s%n", num(s.mean()), p.unit()));
        }
        if (r.requestsFailed() > 0 && !r.everyRequestFailed()) {
            int total = r.requestsCompleted() + r.requestsFailed();
            b.append(String.format(Locale.ROOT, "  failed: %d of %d measured requests (%.1f%%)%n", r.requestsFailed(),
                    total, 100.0 * r.requestsFailed() / total));
        }
        if (r.aborted()) b.append("  (stopped early: fewer iterations than planned)\n");
        return b.append('\n').toString();
    }

    /** JMH's closing table: one row per result and metric, param columns for every param seen. */
    public static String summaryTable(List<HarnessResult> results) {
        Set<String> paramNames = new LinkedHashSet<>();
        for (HarnessResult r : results) paramNames.addAll(r.params().keySet());
        List<String[]> rows = new ArrayList<>();
        List<String> head = new ArrayList<>();
        head.add("Benchmark");
        for (String p : paramNames) head.add("(" + p + ")");
        head.addAll(List.of("Mode", "Cnt", "Score", "", "Error", "Units"));
        rows.add(head.toArray(new String[0]));
        for (HarnessResult r : results) {
            List<MetricResult> metrics = new ArrayList<>();
            metrics.add(r.primary());
            metrics.addAll(r.secondary().values());
            for (MetricResult m : metrics) {
                List<String> row = new ArrayList<>();
                row.add(m == metrics.get(0) ? r.benchmark() : r.benchmark() + ":" + m.label());
                for (String p : paramNames) row.add(r.params().getOrDefault(p, "N/A"));
                ScoreStatistics s = m.statistics();
                row.add(m.mode());
                row.add(Integer.toString(s.n()));
                row.add(num(s.mean()));
                boolean hasError = !Double.isNaN(s.error());
                row.add(hasError ? "±" : "");
                row.add(hasError ? num(s.error()) : "");
                row.add(m.unit());
                rows.add(row.toArray(new String[0]));
            }
        }
        boolean noInterval = false;
        boolean oneIteration = true;
        List<String> noScore = new ArrayList<>();
        for (HarnessResult r : results) {
            if (r.everyRequestFailed()) {
                noScore.add((results.size() == 1 ? "" : " for " + r.benchmark() + paramsText(r.params()))
                        + ": every measured request failed, " + r.requestsFailed() + " of " + r.requestsFailed());
                continue; // its Cnt 0 is said by its own line
            }
            oneIteration &= r.settings().measurement().count() * r.settings().forks() == 1;
            for (MetricResult m : r.secondary().values()) noInterval |= m.statistics().n() < 2;
            noInterval |= r.primary().statistics().n() < 2;
        }
        int cols = rows.get(0).length;
        int[] width = new int[cols];
        for (String[] row : rows) for (int c = 0; c < cols; c++) width[c] = Math.max(width[c], row[c].length());
        StringBuilder b = new StringBuilder(REMEMBER).append('\n');
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < cols; c++) {
                if (c > 0) line.append(c == cols - 2 || c == cols - 3 ? " " : "  ");
                line.append(pad(row[c], width[c], c == 0 || c == cols - 1)); // names and units left-aligned
            }
            b.append(line.toString().stripTrailing()).append('\n');
        }
        if (noInterval) b.append(oneIteration ? ONE_ITERATION : FEWER_THAN_TWO_SCORES).append('\n');
        for (String n : noScore) b.append(NO_SCORE).append(n).append(")\n");
        return b.toString();
    }

    /** A result's params, as the header's Parameters line, to name it in a line under the table. */
    private static String paramsText(Map<String, String> params) {
        List<String> ps = new ArrayList<>();
        params.forEach((k, v) -> ps.add(k + " = " + v));
        return ps.isEmpty() ? "" : " (" + String.join(", ", ps) + ")";
    }

    private static String iterations(IterationSettings s) {
        return s.count() + (s.count() == 1 ? " iteration, " : " iterations, ") + s.timeText() + " each";
    }

    private static String pad(String s, int width, boolean left) {
        String fill = " ".repeat(Math.max(0, width - s.length()));
        return left ? s + fill : fill + s;
    }

    /** JMH prints scores with three decimals. */
    static String num(double v) {
        return Double.isNaN(v) ? "NaN" : String.format(Locale.ROOT, "%.3f", v);
    }
}

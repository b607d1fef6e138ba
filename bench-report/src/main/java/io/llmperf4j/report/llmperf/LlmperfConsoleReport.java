package io.llmperf4j.report.llmperf;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.report.python.PythonRepr;
import java.util.Map;

/**
 * The block llmperf prints to stdout after a run, line for line (token_benchmark_ray.py): the optional timeout
 * line, {@code \Results for token benchmark for ...} (the backslash is llmperf's, a stray escape) and a blank
 * line, each metric's quantiles, mean, min, max and stddev, then the error, throughput and completion lines.
 * Values print as Python prints the pandas/numpy values: float repr ({@code nan} when undefined), integer
 * columns' min and max as integers.
 */
public final class LlmperfConsoleReport {

    private static final String STAT_INDENT = "    ";

    private LlmperfConsoleReport() {
    }

    /** The block for a run; every line ends with "\n". */
    public static String render(BenchmarkRun run) {
        return render(LlmperfSummary.of(run), run.timedOut());
    }

    /**
     * The block for an already computed summary.
     *
     * @param timedOut whether to print llmperf's "Test timed out ..." line first
     */
    public static String render(LlmperfSummary summary, boolean timedOut) {
        StringBuilder out = new StringBuilder(2048);
        if (timedOut) line(out, "Test timed out before all requests could be completed.");
        line(out, "\\Results for token benchmark for " + summary.settings().model() + " queried with the "
                + summary.settings().llmApi() + " api.");
        line(out, "");
        for (LlmperfMetric metric : LlmperfMetric.values()) {
            MetricSummary stats = summary.metric(metric);
            line(out, metric.key());
            for (Map.Entry<String, Double> quantile : stats.quantiles().entrySet()) {
                stat(out, quantile.getKey(), PythonRepr.ofFloat(quantile.getValue()));
            }
            stat(out, "mean", PythonRepr.ofFloat(stats.mean()));
            stat(out, "min", stats.minPrinted());
            stat(out, "max", stats.maxPrinted());
            stat(out, "stddev", PythonRepr.ofFloat(stats.stddev()));
        }
        line(out, "Number Of Errored Requests: " + summary.numberErrors());
        if (summary.numberErrors() > 0) {
            line(out, "Error Code Frequency");
            line(out, summary.errorCodeFrequency());
        }
        line(out, "Overall Output Throughput: " + PythonRepr.ofFloat(summary.meanOutputThroughputTokenPerS()));
        line(out, "Number Of Completed Requests: " + summary.numCompletedRequests());
        line(out, "Completed Requests Per Minute: " + PythonRepr.ofFloat(summary.numCompletedRequestsPerMin()));
        return out.toString();
    }

    private static void stat(StringBuilder out, String name, String value) {
        line(out, STAT_INDENT + name + " = " + value);
    }

    private static void line(StringBuilder out, String text) {
        out.append(text).append('\n');
    }
}

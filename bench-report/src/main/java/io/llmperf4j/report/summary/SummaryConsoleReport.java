package io.llmperf4j.report.summary;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.ClientOverhead;
import io.llmperf4j.report.metrics.ConnectStats;
import io.llmperf4j.report.metrics.Goodput;
import io.llmperf4j.report.metrics.ImageUsage;
import io.llmperf4j.report.metrics.Metric;
import io.llmperf4j.report.metrics.MetricStats;
import io.llmperf4j.report.metrics.MetricUnit;
import io.llmperf4j.report.metrics.Phase;
import io.llmperf4j.report.metrics.PhaseStats;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.metrics.RunWarning;
import io.llmperf4j.servermetrics.summary.ServerSideSummary;
import java.util.List;
import java.util.Locale;

/**
 * llmperf4j's compact console block: one header line, a table (metric, n, p50, p90, p99, mean, unit), run-level
 * rates, token sources, goodput when measured, new connections when known, the client's own overhead when measured, then the
 * warnings. Undefined values print as {@code -}. Every line ends with "\n".
 *
 * <pre>
 * llmperf4j: meta-llama/Llama-2-7b-chat-hf, concurrency 3, 7 requests (4 ok, 3 failed) in 5.500 s
 * metric                          n        p50        p90        p99       mean  unit
 * TTFT                            3    250.000    300.000    300.000    250.000  ms
 * ...
 * </pre>
 */
public final class SummaryConsoleReport {

    private static final String ROW = "%-28s %7s %10s %10s %10s %10s  %s%n";

    private SummaryConsoleReport() {
    }

    /** The block for {@code run} and its metrics. */
    public static String render(BenchmarkRun run, RunMetrics metrics) {
        return render(run, metrics, "concurrency " + run.settings().numConcurrentRequests());
    }

    /** @param concurrency how the load is named, e.g. "concurrency 8" or, for an open loop, "max concurrency 8" */
    public static String render(BenchmarkRun run, RunMetrics metrics, String concurrency) {
        return render(run, metrics, concurrency, null);
    }

    /**
     * As {@link #render(BenchmarkRun, RunMetrics, String)}, where {@code server} is the server's side of the run
     * (null without server metrics): the sessions line names the server's own prefix-cache rate only when it has one.
     */
    public static String render(BenchmarkRun run, RunMetrics metrics, String concurrency, ServerSideSummary server) {
        StringBuilder out = new StringBuilder(1024);
        out.append(String.format(Locale.ROOT, "llmperf4j: %s, %s, %d requests (%d ok, %d failed) in %.3f s%s%n",
                run.settings().model(), concurrency, metrics.requestsRecorded(),
                metrics.requestsSucceeded(), metrics.requestsFailed(), run.durationNanos() / 1e9,
                run.timedOut() ? " (timed out)" : ""));
        out.append(String.format(Locale.ROOT, ROW, "metric", "n", "p50", "p90", "p99", "mean", "unit"));
        for (Metric metric : Metric.values()) {
            MetricStats s = metrics.stats(metric);
            if (metric.shownOnlyWithValues() && s.count() == 0) continue; // TTFRT of a model that does not reason
            MetricUnit unit = metric.unit();
            out.append(String.format(Locale.ROOT, ROW, metric.label(), Long.toString(s.count()),
                    value(unit, s.p50()), value(unit, s.p90()), value(unit, s.p99()), value(unit, s.mean()),
                    unit.reportName()));
        }
        out.append(String.format(Locale.ROOT, "Output throughput: %s tok/s   Request throughput: %s req/s   "
                        + "Errors: %d of %d (%s)%n",
                fixed(metrics.outputTokensPerSecond(), 2), fixed(metrics.requestsPerSecond(), 3),
                metrics.errors().failed(), metrics.requestsRecorded(), percent(metrics.errors().errorRate())));
        out.append(String.format(Locale.ROOT, "Output tokens from: server usage %d, client tokenizer %d (minus %d "
                        + "special), none %d%n",
                metrics.outputTokenSources().serverUsage(), metrics.outputTokenSources().clientTokenizer(),
                metrics.config().tokenCounting().clientSpecialTokens(), metrics.outputTokenSources().none()));
        // the Input tokens row mixes the server's prompt count (template included) and the workload's: say whose
        out.append(String.format(Locale.ROOT, "Input tokens from: server usage %d, the workload's count %d%n",
                metrics.inputTokenSources().serverUsage(), metrics.inputTokenSources().clientTokenizer()));
        if (metrics.goodput().isPresent()) {
            Goodput g = metrics.goodput().get();
            // several terms bounding one metric were merged into one bound: say which
            List<String> merged = metrics.config().mergedGoodputBounds();
            out.append(String.format(Locale.ROOT, "Goodput (%s): %s req/s, %d of %d requests good (%s)%s%n",
                    g.slo().describe() + (g.fromIntendedSend() ? ", from the intended send" : "")
                            + (merged.isEmpty() ? "" : "; " + String.join("; ", merged)),
                    fixed(g.goodRequestsPerSecond(), 3), g.goodRequests(), g.judgedRequests(),
                    percent(g.goodFraction()), g.censoredRequests() == 0 ? ""
                            : "; " + g.censoredRequests() + " cancelled before any bound was missed left out"));
        }
        // the --slo objectives judged by the capacity search's rule (absent without objectives)
        metrics.sloVerdict().ifPresent(v -> out.append(SloVerdictText.block(SloVerdictJson.of(v,
                metrics.goodput().map(Goodput::fromIntendedSend).orElse(false)))));
        ImageUsage images = ImageUsage.of(run);
        if (images.any()) {
            // a failed or cancelled request may have been cut before its body went out whole: say how many
            long unfinished = run.records().stream().filter(r -> r.tags().imageCount() > 0 && !r.succeeded()).count();
            out.append(String.format(Locale.ROOT, "Images: %d sent in %d requests (%.1f Mpixel, %.1f MB%s%s); input "
                            + "tokens per request: server usage %s (text + images + template) vs client tokenizer %s "
                            + "(text only), %s%n", images.images(), images.requestsWithImages(),
                    images.pixels() / 1e6, images.bytes() / 1e6,
                    images.detail() == null ? "" : ", detail " + images.detail(),
                    unfinished == 0 ? "" : "; " + unfinished + " of the requests failed or were cancelled, their "
                            + "images perhaps not sent whole",
                    fixed(images.serverPromptTokensPerRequest(), 1), fixed(images.clientTextTokensPerRequest(), 1),
                    ImageTokensWords.perImage(SummaryDocument.ImagesJson.of(images))));
        }
        String sessions = SessionsSummary.consoleLine(SessionsSummary.of(run.records(), metrics.config().tokenCounting()),
                run.records().stream().filter(r -> !r.succeeded()).count(),
                server != null && server.prefixCacheHitRate() != null);
        if (sessions != null) out.append(sessions);
        ConnectStats connects = ConnectStats.of(run);
        if (connects.newConnections() > 0) out.append(String.format(Locale.ROOT, "Connections: %d new (connect p50 %s ms, p99 %s ms), %d requests "
                        + "without a new connection%n", connects.newConnections(), fixed(connects.p50Nanos() / 1e6, 3),
                fixed(connects.p99Nanos() / 1e6, 3), connects.withoutConnect()));
        if (connects.preconnected() > 0) {
            out.append(String.format(Locale.ROOT, "Pre-connected: %d connections opened before the clock (connect p50 "
                            + "%s ms, p99 %s ms, max %s ms), outside every TTFT%n", connects.preconnected(),
                    fixed(connects.preconnectP50Nanos() / 1e6, 3), fixed(connects.preconnectP99Nanos() / 1e6, 3),
                    fixed(connects.preconnectMaxNanos() / 1e6, 3)));
        }
        String phases = ttftPhases(PhaseStats.of(metrics.requests()));
        if (phases != null) out.append(phases);
        ClientOverhead o = run.clientOverhead();
        if (o != null) {
            out.append(String.format(Locale.ROOT, "Client overhead: event-loop lag p50 %s ms, p99 %s ms, max %s ms; "
                            + "I/O threads busy %s (busiest %s); process CPU %s of %d cores; GC %d pauses, %s ms%n",
                    o.lagSamples() == 0 ? "-" : fixed(o.lagP50Nanos() / 1e6, 3),
                    o.lagSamples() == 0 ? "-" : fixed(o.lagP99Nanos() / 1e6, 3),
                    o.lagSamples() == 0 ? "-" : fixed(o.lagMaxNanos() / 1e6, 3), percent(o.ioBusyShareMean()),
                    percent(o.ioBusyShareMax()), percent(o.processCpuShare()), o.availableProcessors(), o.gcCount(),
                    fixed(o.gcPauseNanos() / 1e6, 1)));
        }
        if (!metrics.warnings().isEmpty()) {
            out.append("Warnings:\n");
            for (RunWarning warning : metrics.warnings()) out.append("  ").append(line(warning)).append('\n');
        }
        return out.toString();
    }

    /**
     * A warning as the console says it, "[CODE] message", every code alike: scripts find a warning in the console or
     * in stderr ({@code --quiet}) by its code, as docs/scripting.md says.
     */
    public static String line(RunWarning warning) {
        return warning.toString();
    }

    /**
     * One line saying where TTFT went: the mean of each term over the requests with every milestone known (means add
     * up; medians would not), or null when no request measured its phases.
     */
    static String ttftPhases(PhaseStats p) {
        if (p.timedRequests() == 0) return null;
        StringBuilder line = new StringBuilder("TTFT mean ").append(fixed(p.ttftMeanNanos() / 1e6, 3)).append(" ms =");
        String sep = " ";
        for (Phase phase : Phase.values()) {
            if (!phase.partOfTtft()) continue;
            line.append(sep).append(phase.label()).append(' ').append(fixed(p.ttftBreakdown().get(phase) / 1e6, 3));
            sep = " + ";
        }
        return line.append(String.format(Locale.ROOT, " (%d requests with every phase timed; p50s in the summary's "
                + "phases)%n", p.timedRequests())).toString();
    }

    private static String value(MetricUnit unit, double base) {
        int decimals = switch (unit) {
            case NANOSECONDS -> 3;
            case TOKENS_PER_SECOND -> 2;
            case TOKENS -> 1;
        };
        return fixed(unit.toReportUnit(base), decimals);
    }

    static String fixed(double value, int decimals) {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%." + decimals + "f", value) : "-";
    }

    static String percent(double fraction) {
        return Double.isFinite(fraction) ? String.format(Locale.ROOT, "%.1f%%", 100 * fraction) : "-";
    }
}

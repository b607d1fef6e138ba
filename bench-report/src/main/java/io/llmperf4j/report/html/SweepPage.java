package io.llmperf4j.report.html;

import io.llmperf4j.report.metrics.Metric;
import io.llmperf4j.report.output.IterationsFile;
import io.llmperf4j.report.output.JmhFile;
import io.llmperf4j.report.output.SweepFiles;
import io.llmperf4j.report.search.LevelSlo;
import io.llmperf4j.report.search.SweepSloVerdict;
import io.llmperf4j.report.summary.SloVerdictText;
import io.llmperf4j.report.summary.SummaryDocument;
import io.llmperf4j.servermetrics.summary.ServerSideSummarizer;
import io.llmperf4j.servermetrics.summary.ServerSideSummary;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;

/**
 * The page of a load sweep, sweep first: the verdict (with {@code --slo} objectives, up to which level they held);
 * p50, p90 and p99 of TTFT, TPOT, ITL and E2E against load;
 * output throughput against load and against E2E latency (the latency-throughput curve) with the saturation point
 * marked; the sweep table; then each level's numbers with a link to its own report. Every point carries its values
 * as hover text ({@code <title>}) and as {@code data-x}/{@code data-y}. One instance per page; not thread-safe.
 */
final class SweepPage {

    private static final String SATURATION_COLOR = "#6a3d9a";
    private static final String FAILING_COLOR = "#e65100";
    private static final int[] PERCENTILES = {50, 90, 99};
    private static final String[] PERCENTILE_COLORS = {Palette.BLUE, Palette.ORANGE, Palette.RED};
    /** The page's own rules, after the shared ones: the SLO flags. */
    private static final String CSS = ".flag.slo-met{background:var(--good)}.flag.slo-missed{background:var(--bad)}";

    private final SweepData data;
    private final SweepFiles.Document sweep;
    private final List<SweepData.Level> levels;
    private final StringBuilder out = new StringBuilder(64 * 1024);
    /**
     * A rate sweep (open loop): the summaries' latencies count from the actual send, the sweep rows' TTFT and E2E
     * from the intended send (waiting behind the cap and the pacer included, as the console's sweep table).
     */
    private final boolean openLoop;

    SweepPage(SweepData data) {
        this.data = data;
        this.sweep = data.sweep();
        this.levels = data.levels();
        this.openLoop = data.openLoop();
    }

    String render() {
        String model = sweep.model() == null ? "" : sweep.model();
        out.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
                .append("<meta name=\"generator\" content=\"llmperf4j").append(Html.esc(toolVersion().isEmpty() ? ""
                        : " " + toolVersion())).append("\"/>\n<title>llmperf4j sweep: ").append(Html.esc(model)).append("</title>\n")
                .append("<style>\n").append(HtmlPage.CSS).append('\n').append(CSS).append("\n</style>\n</head>\n<body>\n<main>\n");
        header(model);
        verdict();
        latencyCharts();
        throughputCharts();
        table();
        levelSections();
        footer();
        out.append("</main>\n</body>\n</html>\n");
        return out.toString();
    }

    // ---------------------------------------------------------------- header and verdict

    private void header(String model) {
        out.append("<header>\n<h1>llmperf4j sweep: <span class=\"model\">").append(Html.esc(model))
                .append("</span></h1>\n<p class=\"sub\">")
                .append(Html.esc(String.join(" \u00b7 ", subtitle()))).append("</p>\n")
                .append(SimulatedNotice.paragraph(data.simulated())) // the model's name may be a real one's
                .append("<nav><a href=\"#sweep\">Sweep</a><a href=\"#latency-vs-load\">Latency vs load</a>"
                        + "<a href=\"#throughput\">Throughput</a><a href=\"#sweep-table\">Table</a>"
                        + "<a href=\"#levels\">Levels</a><a href=\"#method\">Method</a></nav>\n</header>\n");
    }

    private List<String> subtitle() {
        List<String> sub = new ArrayList<>();
        if (sweep.load() != null) sub.add(sweep.load());
        sub.add(levels.size() + (levels.size() == 1 ? " level" : " levels") + " of " + data.loadUnit());
        // a sweep of iterations names its warmup iterations in its load text; files written before its warmup key
        // named them said "none"
        boolean warmupInLoad = data.ofIterations() && "none".equals(sweep.warmup());
        if (sweep.warmup() != null && !sweep.warmup().isEmpty() && !warmupInLoad) sub.add("warmup " + sweep.warmup());
        if (sweep.stopped()) sub.add("stopped before its last level");
        return sub;
    }

    private void verdict() {
        out.append("<section id=\"sweep\">\n<h2>Load sweep</h2>\n<div class=\"card\"><ul>\n");
        // in the verdict's own words (the sweep file's lines, as the console prints them): "not judged" where it
        // compared nothing, what the first failures mean (the server going away is no measure of capacity)
        li(verdictLine("Saturation point", data.saturationIndex(), saturationMeaning(),
                status("saturation point: ", "not reached")), "verdict-saturation");
        if (data.kneeIndex().isPresent()) {
            li(verdictLine("Knee", data.kneeIndex(), openLoop ? "the last level that kept up with its offer: run at "
                    + "or below it" : "the last level before output tok/s stopped growing: run there", ""),
                    "verdict-knee");
        }
        li(verdictLine("TTFT red line", data.ttftRedLineIndex(), "TTFT p90 jumped",
                status("TTFT red line: ", "not crossed")), "verdict-redline");
        li(verdictLine("First level with failures", data.firstFailingIndex(), failingMeaning(),
                status("failures: ", "none")), "verdict-failing");
        SweepFiles.Rules r = sweep.rules();
        if (r != null) {
            // the verdict's rules (SaturationVerdict): an open loop saturates when it falls behind its own offer
            String saturation = openLoop
                    ? String.format(Locale.ROOT, "saturation when a level's successes end below %.1f %% of its "
                    + "scheduled rate with 95 %% confidence (a level whose interval straddles it is too short to "
                    + "tell; a rate sweep of sessions: when output tok/s grows by less than %.1f %% over the "
                    + "previous judged level)", 100 - r.saturationGainPercent(), r.saturationGainPercent())
                    : String.format(Locale.ROOT, "saturation when output tok/s grows by less than %.1f %% over the "
                    + "previous judged level", r.saturationGainPercent());
            // an uncapped rate sweep judges TTFT from the actual send: the rows' carries the client's own send lag
            out.append("<li>").append(Html.esc(String.format(Locale.ROOT, "Rules: %s; TTFT red line when TTFT p90 is "
                            + "%.1fx the previous judged level's or more%s; a level needs %d successful requests to be "
                            + "judged (and a closed loop's as many requests as its concurrency); a level whose every "
                            + "request failed is not judged.", saturation, r.ttftJumpFactor(), openLoop
                            ? " (without --max-concurrency, TTFT p90 from the actual send, not the table's from the "
                            + "intended send, which carries the client's own send lag)" : "",
                    r.minSuccessfulSamples()))).append("</li>\n");
        }
        SweepSloVerdict slo = sweep.slo();
        if (slo != null) {
            String outcome = slo.passed() == null ? "" : slo.passed() ? " slo-pass" : " slo-fail";
            li("<strong>" + Html.esc(slo.answer()) + "</strong> (objectives: "
                    + Html.esc(String.join(", ", slo.objectives())) + ")", "verdict-slo" + outcome);
        }
        for (String line : nonNull(sweep.verdict().lines())) out.append("<li>").append(Html.esc(line)).append("</li>\n");
        for (String w : nonNull(sweep.verdict().warnings())) {
            out.append("<li class=\"warn\">").append(Html.esc(w)).append("</li>\n");
        }
        for (SweepData.Level l : levels) {
            if (l.row().aborted()) {
                out.append("<li>").append(Html.esc(l.row().label() + " was aborted (stopped by a signal: Ctrl-C or SIGTERM): " + l.row().failures()
                        + " of " + l.row().total() + " requests failed or were cancelled.")).append("</li>\n");
            }
        }
        out.append("</ul></div>\n</section>\n");
    }

    private String verdictLine(String what, OptionalInt index, String meaning, String otherwise) {
        if (index.isEmpty()) return "<strong>" + Html.esc(what) + ":</strong> " + Html.esc(otherwise);
        SweepFiles.Level level = levels.get(index.getAsInt()).row();
        return "<strong>" + Html.esc(what) + ":</strong> <span class=\"level\" data-level=\""
                + Html.data(level.level()) + "\">" + Html.esc(level.label()) + "</span>"
                + (meaning.isEmpty() ? "" : " (" + Html.esc(meaning) + ")");
    }

    /**
     * The verdict's word where it found no level: its line starting with {@code prefix}, up to its reasons ("not
     * judged", "not reached", "none that point at the service"); {@code otherwise} for a file without that line.
     */
    private String status(String prefix, String otherwise) {
        String line = verdictLineText(prefix);
        if (line == null) return otherwise;
        int reasons = line.indexOf(" (");
        return reasons < 0 ? line : line.substring(0, reasons);
    }

    /**
     * What the first level with failures means, as its verdict line ends after the failures' counts: "the service
     * cannot hold it", "the server went away during it, not a limit of the service's capacity", or nothing (failures
     * of no known cause); "the service cannot hold it" for a file without the line.
     */
    private String failingMeaning() {
        String line = verdictLineText("first level with failures: ");
        if (line == null) return "the service cannot hold it";
        int open = line.indexOf('(');
        int depth = 0;
        for (int i = Math.max(0, open); open >= 0 && i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '(') depth++;
            if (c == ')' && --depth == 0) {
                return line.startsWith(": ", i + 1) ? line.substring(i + 3) : "";
            }
        }
        return "";
    }

    /**
     * Why the saturation point is where it is, in the rule that decided it, as the verdict line gives it after the
     * level ("successes ended at 74.3 % ... of the scheduled rate: the service fell behind the offer; threshold 95.0
     * %", "output tok/s +2.1 % over concurrency 10; threshold 5.0 %"); for a file without the line, the rule of its
     * loop in words.
     */
    private String saturationMeaning() {
        String fallback = openLoop ? "its successes fell behind its scheduled rate" : "output tok/s stopped growing";
        String line = verdictLineText("saturation point: ");
        if (line == null) return fallback;
        String reasons = outermostParenthesis(line);
        return reasons == null || reasons.isEmpty() ? fallback : reasons;
    }

    /** The text inside the first parenthesis of {@code line} and its nested ones; null when there is none. */
    private static String outermostParenthesis(String line) {
        int open = line.indexOf('(');
        if (open < 0) return null;
        int depth = 0;
        for (int i = open; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '(') depth++;
            if (c == ')' && --depth == 0) return line.substring(open + 1, i);
        }
        return null;
    }

    /** The sweep file's verdict line starting with {@code prefix}, after it; null when there is none. */
    private String verdictLineText(String prefix) {
        for (String line : nonNull(sweep.verdict().lines())) {
            if (line.startsWith(prefix)) return line.substring(prefix.length());
        }
        return null;
    }

    private void li(String html, String cssClass) {
        out.append("<li class=\"").append(cssClass).append("\">").append(html).append("</li>\n");
    }

    // ---------------------------------------------------------------- charts

    private double[] load() {
        return levels.stream().mapToDouble(l -> l.row().level()).toArray();
    }

    private SvgChart.Axis loadAxis() {
        double[] load = load();
        double min = Arrays.stream(load).min().orElse(0);
        double max = Arrays.stream(load).max().orElse(0);
        SvgChart.Axis axis = SvgChart.Axis.linear("Load", data.loadUnit()).withTicks(load);
        return min > 0 && max / min >= 10 ? axis.withScale(SvgChart.Scale.LOG) : axis;
    }

    private void latencyCharts() {
        out.append("<section id=\"latency-vs-load\">\n<h2>Latency against load</h2>\n<div class=\"charts\">\n");
        double[] load = load();
        for (Metric metric : SweepData.LATENCIES) {
            String key = metric.jsonKey().replace("_ms", "").replace('_', '-');
            boolean fromSend = metric == Metric.TTFT || metric == Metric.E2E_LATENCY; // counted from a send
            SvgChart.Builder chart = SvgChart.builder("sweep-" + key, metric.label() + " vs load"
                            + (openLoop && fromSend ? ", from the actual send" : ""))
                    .x(loadAxis())
                    .y(SvgChart.Axis.linear(metric.label(), "ms").includingZero())
                    .emptyMessage("No " + metric.label() + " in these levels' files");
            for (int p = 0; p < PERCENTILES.length; p++) {
                int percentile = PERCENTILES[p];
                double[] ys = levels.stream().mapToDouble(l -> l.percentileMs(metric, percentile)).toArray();
                String[] titles = new String[levels.size()];
                for (int i = 0; i < titles.length; i++) {
                    titles[i] = levels.get(i).row().label() + ": " + metric.label() + " p" + percentile + " "
                            + Html.fixed(ys[i], 1) + " ms";
                }
                SvgChart.Series series = SvgChart.Series.lineMarkers("p" + percentile, PERCENTILE_COLORS[p], load, ys)
                        .withTitles(titles).withClass("sweep-" + key + "-p" + percentile);
                chart.add(percentile == 50 ? series : series.asDashed());
            }
            if (metric == Metric.TTFT) highlight(chart, data.ttftRedLineIndex(), load, 90, Palette.RED, "red line");
            marks(chart);
            card(chart, metric.label() + " p50, p90 and p99 of successful requests at each level"
                    + (metric == Metric.ITL ? " (ITL pools every gap between content events)" : "")
                    + (openLoop && fromSend ? ", from the actual send (each level's summary): waiting behind the "
                            + "cap and the pacer is not included; the table's TTFT from the intended send includes it"
                            : "")
                    + "; a level without it is a gap. Hover a point for its value.");
        }
        out.append("</div>\n</section>\n");
    }

    private void highlight(SvgChart.Builder chart, OptionalInt index, double[] xs, int percentile, String color,
                           String name) {
        if (index.isEmpty()) return;
        int i = index.getAsInt();
        double y = levels.get(i).percentileMs(Metric.TTFT, percentile);
        if (!Double.isFinite(y)) return;
        chart.add(SvgChart.Series.markers(name, color, new double[] {xs[i]}, new double[] {y})
                .withShape(SvgChart.Shape.RING).withClass("highlight")
                .withTitles(new String[] {name + ": " + levels.get(i).row().label()}));
    }

    private void throughputCharts() {
        out.append("<section id=\"throughput\">\n<h2>Throughput</h2>\n<div class=\"charts\">\n");
        double[] load = load();
        double[] tps = levels.stream().mapToDouble(SweepData.Level::outputTokensPerSecond).toArray();
        String[] titles = new String[levels.size()];
        for (int i = 0; i < titles.length; i++) {
            titles[i] = levels.get(i).row().label() + ": " + Html.fixed(tps[i], 1) + " output tok/s";
        }
        SvgChart.Builder vsLoad = SvgChart.builder("sweep-throughput", "Output throughput vs load")
                .x(loadAxis())
                .y(SvgChart.Axis.linear("Output throughput", "tok/s").includingZero())
                .add(SvgChart.Series.lineMarkers("output tok/s", Palette.GREEN, load, tps).withTitles(titles)
                        .withClass("sweep-tps"));
        saturation(vsLoad, load, tps);
        marks(vsLoad);
        card(vsLoad, "System output tokens per second at each level.");

        // the latency-throughput curve: what each level's throughput costs in latency
        double[] e2e = levels.stream().mapToDouble(l -> l.percentileMs(Metric.E2E_LATENCY, 50)).toArray();
        String[] curveTitles = new String[levels.size()];
        for (int i = 0; i < curveTitles.length; i++) {
            curveTitles[i] = levels.get(i).row().label() + ": " + Html.fixed(tps[i], 1) + " output tok/s at E2E p50 "
                    + Html.fixed(e2e[i], 1) + " ms";
        }
        SvgChart.Builder curve = SvgChart.builder("sweep-latency-throughput", "Latency-throughput curve")
                .x(SvgChart.Axis.linear("E2E latency p50", "ms").includingZero())
                .y(SvgChart.Axis.linear("Output throughput", "tok/s").includingZero())
                .add(SvgChart.Series.lineMarkers("levels in sweep order", Palette.GREEN, e2e, tps)
                        .withTitles(curveTitles).withClass("curve"));
        saturation(curve, e2e, tps);
        OptionalInt knee = data.kneeIndex();
        card(curve, "Each point is a level: output tok/s against its median end-to-end latency. "
                + (knee.isPresent() ? "The knee, " + levels.get(knee.getAsInt()).row().label() + ", is the last "
                + (openLoop ? "level that kept up with its offer" : "level before throughput stopped growing")
                + ": run there; past it more load buys latency, not throughput."
                : "Past the saturation point more load buys latency, not throughput."));
        out.append("</div>\n</section>\n");
    }

    /**
     * The saturation point ringed at (xs[i], ys[i]), its level in {@code data-level}; the knee, where to run, marked
     * too.
     */
    private void saturation(SvgChart.Builder chart, double[] xs, double[] ys) {
        OptionalInt knee = data.kneeIndex();
        if (knee.isPresent() && Double.isFinite(xs[knee.getAsInt()]) && Double.isFinite(ys[knee.getAsInt()])) {
            int k = knee.getAsInt();
            chart.add(SvgChart.Series.markers("knee", Palette.BLUE, new double[] {xs[k]}, new double[] {ys[k]})
                    .withShape(SvgChart.Shape.RING)
                    .withClass("knee level-" + Html.data(levels.get(k).row().level()).replace('.', '_'))
                    .withTitles(new String[] {"knee: " + levels.get(k).row().label() + ", " + Html.fixed(ys[k], 1)
                            + " output tok/s, the knee: run there"}));
        }
        OptionalInt index = data.saturationIndex();
        if (index.isEmpty()) return;
        int i = index.getAsInt();
        if (!Double.isFinite(xs[i]) || !Double.isFinite(ys[i])) return;
        chart.add(SvgChart.Series.markers("saturation point", SATURATION_COLOR, new double[] {xs[i]},
                        new double[] {ys[i]}).withShape(SvgChart.Shape.RING)
                .withClass("saturation-point level-" + Html.data(levels.get(i).row().level()).replace('.', '_'))
                .withTitles(new String[] {"saturation point: " + levels.get(i).row().label() + ", "
                        + Html.fixed(ys[i], 1) + " output tok/s"}));
    }

    private void marks(SvgChart.Builder chart) {
        mark(chart, data.saturationIndex(), "saturation", SATURATION_COLOR, "marker-saturation");
        mark(chart, data.ttftRedLineIndex(), "TTFT red line", Palette.RED, "marker-redline");
        mark(chart, data.firstFailingIndex(), "failures", FAILING_COLOR, "marker-failing");
    }

    private void mark(SvgChart.Builder chart, OptionalInt index, String label, String color, String cssClass) {
        if (index.isPresent()) {
            chart.mark(SvgChart.Marker.vertical(levels.get(index.getAsInt()).row().level(), label, color, cssClass));
        }
    }

    private void card(SvgChart.Builder chart, String caption) {
        out.append("<div class=\"card\">").append(chart.build().toSvg()).append("<p class=\"caption\">")
                .append(Html.esc(caption)).append("</p></div>\n");
    }

    // ---------------------------------------------------------------- table

    private void table() {
        out.append("<section id=\"sweep-table\">\n<h2>Levels</h2>\n<div class=\"card\">\n<table class=\"sweep\">\n"
                + "<thead>");
        boolean goodput = anyGoodput();
        boolean slo = sweep.slo() != null;
        if (openLoop) { // which send the latencies count from; an open loop's goodput is judged from the intended one
            out.append("<tr><th colspan=\"6\"></th><th colspan=\"")
                    .append(SweepData.LATENCIES.size() * PERCENTILES.length)
                    .append("\" class=\"from-actual\">from the actual send (each level's summary)</th>"
                            + "<th colspan=\"").append(goodput ? 4 : 2).append("\" class=\"from-intended\">from the "
                            + "intended send (the sweep file's)</th>")
                    .append(slo ? "<th colspan=\"2\"></th>" : "<th></th>").append("</tr>"); // over SLO and verdict
        }
        out.append("<tr><th>level</th><th class=\"num\">load</th><th class=\"num\">ok / total</th>"
                + "<th class=\"num\">success</th><th class=\"num\">output tok/s</th><th class=\"num\">req/s</th>");
        for (Metric m : SweepData.LATENCIES) {
            for (int p : PERCENTILES) {
                out.append("<th class=\"num\">").append(Html.esc(shortLabel(m))).append(" p").append(p).append("</th>");
            }
        }
        if (openLoop) out.append("<th class=\"num\">TTFT p50</th><th class=\"num\">TTFT p90</th>");
        if (goodput) out.append("<th class=\"num\">goodput req/s</th><th class=\"num\">good</th>");
        if (slo) out.append("<th>SLO</th>");
        out.append("<th>verdict</th></tr></thead>\n<tbody>\n");
        for (int i = 0; i < levels.size(); i++) {
            SweepData.Level level = levels.get(i);
            SweepFiles.Level l = level.row();
            List<String> classes = new ArrayList<>();
            StringBuilder flags = new StringBuilder();
            if (is(data.saturationIndex(), i)) {
                classes.add("saturation");
                flags.append("<span class=\"flag saturation\">saturation point</span>");
            }
            if (is(data.kneeIndex(), i)) {
                classes.add("knee");
                flags.append("<span class=\"flag knee\">knee: run here</span>");
            }
            if (is(data.ttftRedLineIndex(), i)) {
                classes.add("redline");
                flags.append("<span class=\"flag redline\">TTFT red line</span>");
            }
            if (is(data.firstFailingIndex(), i)) {
                classes.add("failing");
                flags.append("<span class=\"flag failing\">first failures</span>");
            } else if (l.failures() > 0) {
                classes.add("has-failures");
                flags.append("<span class=\"flag\">").append(l.failures()).append(" failed</span>");
            }
            if (l.aborted()) flags.append("<span class=\"flag\">aborted</span>");
            if (l.fewSamples() && !l.aborted()) {
                // too few successes for the verdict: its rates and goodput are of those few (refusals end fast, so
                // a level of refusals can look the fastest of the sweep), said in the row itself
                classes.add("not-judged");
                flags.append("<span class=\"flag not-judged\">").append(Html.esc(notJudgedWords(l))).append("</span>");
            }
            out.append("<tr data-index=\"").append(i).append("\" data-level=\"").append(Html.data(l.level()))
                    .append('"');
            if (!classes.isEmpty()) out.append(" class=\"").append(String.join(" ", classes)).append('"');
            out.append("><td>").append(Html.esc(l.label())).append("</td><td class=\"num\">")
                    .append(Html.esc(AxisLayout.compact(l.level()))).append("</td><td class=\"num\">")
                    .append(l.successes()).append(" / ").append(l.total()).append("</td><td class=\"num\">")
                    .append(Html.esc(Html.percent(l.total() == 0 ? null : (double) l.successes() / l.total())))
                    .append("</td><td class=\"num\">").append(Html.fixed(l.outputTokS(), 1))
                    .append("</td><td class=\"num\">").append(Html.fixed(l.requestsS(), 2)).append("</td>");
            for (Metric m : SweepData.LATENCIES) {
                for (int p : PERCENTILES) {
                    out.append("<td class=\"num\" data-metric=\"").append(m.jsonKey()).append("\" data-p=\"")
                            .append(p).append("\">").append(Html.fixed(level.percentileMs(m, p), 1)).append("</td>");
                }
            }
            if (openLoop) {
                out.append("<td class=\"num\" data-metric=\"ttft_from_intended_ms\" data-p=\"50\">")
                        .append(Html.fixed(l.ttftP50Ms(), 1)).append("</td>")
                        .append("<td class=\"num\" data-metric=\"ttft_from_intended_ms\" data-p=\"90\">")
                        .append(Html.fixed(l.ttftP90Ms(), 1)).append("</td>");
            }
            if (goodput) {
                out.append("<td class=\"num\" data-metric=\"good_requests_per_s\">")
                        .append(Html.fixed(l.goodRequestsPerS(), 2)).append("</td>")
                        .append("<td class=\"num\" data-metric=\"good_fraction\">")
                        .append(Html.esc(Html.percent(l.goodFraction()))).append("</td>");
            }
            if (slo) sloCell(l.slo());
            out.append("<td>").append(flags).append("</td></tr>\n");
        }
        out.append("</tbody>\n</table>\n<p class=\"caption\">Latencies in ms, successful requests only. The figures "
                + "are " + figuresSource()
                + (openLoop ? ", counted from the actual send; the last TTFT columns count from the intended send "
                + "(waiting behind the cap and the pacer included) and are the sweep file's, as the console's sweep "
                + "table" : "")
                + "; the verdict is the sweep file's"
                + (goodput ? "; goodput is each level's requests per second that met every --slo latency bound, "
                + "good the share of its judged requests that did (failures count as not good), as its summary's "
                + "goodput block" + (openLoop ? ", judged from the intended send" : "") : "")
                + (slo ? "; SLO is each level's --slo verdict (its summary's slo block; unresolved: decided by the "
                + "estimates, its 95 % intervals straddling a limit; not judged: stopped before its end)" : "")
                + ".</p>\n</div>\n</section>\n");
    }

    /**
     * "not judged: 6 of 48 succeeded (87.5 % failed)": a level with too few successes for the verdict, its error rate
     * beside it (the console's flag says the same).
     */
    static String notJudgedWords(SweepFiles.Level l) {
        int failed = l.total() - l.successes();
        return "not judged: " + l.successes() + " of " + l.total() + " succeeded" + (failed <= 0 || l.total() == 0
                ? "" : String.format(Locale.ROOT, " (%.1f %% failed)", 100.0 * failed / l.total()));
    }

    /** Whether any level has goodput (the sweep ran with an {@code --slo} TTFT, TPOT or E2E bound). */
    private boolean anyGoodput() {
        return levels.stream().anyMatch(l -> l.row().goodRequestsPerS() != null || l.row().goodFraction() != null);
    }

    /** Where the table's figures come from: the levels' summaries, or the sweep file's rows for levels without. */
    private String figuresSource() {
        if (!data.anySummary()) {
            return "the sweep file's (no level has a summary file"
                    + (data.ofIterations() ? ": a sweep of iterations writes none, and each row pools the level's "
                    + "measurement iterations over every fork" : "") + ")";
        }
        return levels.stream().allMatch(l -> l.summary() != null) ? "each level's summary file's"
                : "each level's summary file's (the sweep file's for a level without one)";
    }

    /** A level's --slo verdict: met or missed (each objective missed named in its title), or not judged. */
    private void sloCell(LevelSlo v) {
        out.append("<td");
        if (v != null) {
            out.append(" data-slo=\"").append(Html.esc(v.status())).append('"');
            if (!v.missed().isEmpty()) out.append(" title=\"").append(Html.esc("missed: " + String.join(", ",
                    v.missed()))).append('"');
        }
        out.append('>');
        if (v != null) {
            out.append("<span class=\"flag").append(!v.judged() ? "" : v.failed() ? " slo-missed" : " slo-met")
                    .append("\">").append(Html.esc(v.cell())).append("</span>");
        } else {
            out.append('-');
        }
        out.append("</td>");
    }

    private static String shortLabel(Metric m) {
        return m == Metric.E2E_LATENCY ? "E2E" : m == Metric.ITL ? "ITL" : m == Metric.TPOT ? "TPOT" : m.label();
    }

    private static boolean is(OptionalInt index, int i) {
        return index.isPresent() && index.getAsInt() == i;
    }

    // ---------------------------------------------------------------- each level

    private void levelSections() {
        out.append("<section id=\"levels\">\n<h2>Each level</h2>\n");
        for (SweepData.Level level : levels) {
            SweepFiles.Level l = level.row();
            out.append("<div class=\"card level\" id=\"level-").append(Html.esc(anchor(l))).append("\" data-level=\"")
                    .append(Html.data(l.level())).append("\" style=\"margin-bottom:12px\">\n<h3>")
                    .append(Html.esc(l.label())).append("</h3>\n<p>").append(l.successes()).append(" of ")
                    .append(l.total()).append(" requests succeeded \u00b7 ").append(Html.fixed(l.outputTokS(), 1))
                    .append(" output tok/s \u00b7 ").append(Html.fixed(l.requestsS(), 2)).append(" req/s");
            if (level.reportHref() != null) {
                out.append(" \u00b7 <a href=\"").append(Html.esc(level.reportHref())).append(data.ofIterations()
                        ? "\">this level's iterations</a> (each iteration's output tok/s, and its means)"
                        : "\">this level's own report</a> (its charts over time and errors)");
            } else if (l.resultsDir() != null) {
                out.append(" \u00b7 files in <code>").append(Html.esc(l.resultsDir())).append("</code>");
            }
            out.append("</p>\n");
            SummaryDocument s = level.summary();
            if (s == null) {
                out.append(data.ofIterations() && level.reportHref() != null
                        ? "<p class=\"caption\">A sweep of iterations keeps no summary per level: the sweep file's "
                        + "figures here, each iteration on the level's page.</p>\n</div>\n"
                        : "<p class=\"caption\">No summary in this level's folder: only the sweep file's figures "
                        + "are known.</p>\n</div>\n");
                continue;
            }
            if (s.slo() != null && !l.aborted()) { // a level cut short is not judged
                out.append("<p class=\"slo ").append(s.slo().passed() ? "slo-pass" : "slo-fail").append("\">")
                        .append(Html.esc(SloVerdictText.header(s.slo()))).append("</p>\n");
            }
            for (SummaryDocument.WarningJson w : s.warnings()) {
                out.append("<p class=\"note\"><span class=\"mono\">").append(Html.esc(w.code())).append("</span> ")
                        .append(Html.esc(w.message())).append("</p>\n");
            }
            out.append("<table class=\"stats\"><thead><tr><th>metric</th><th class=\"num\">n</th>"
                    + "<th class=\"num\">p50</th><th class=\"num\">p90</th><th class=\"num\">p99</th>"
                    + "<th class=\"num\">mean</th><th>unit</th></tr></thead>\n<tbody>\n");
            for (Metric m : List.of(Metric.TTFT, Metric.TPOT, Metric.ITL, Metric.E2E_LATENCY,
                    Metric.REQUEST_OUTPUT_THROUGHPUT, Metric.OUTPUT_TOKENS)) {
                SummaryDocument.StatsJson st = level.stats(m);
                if (st == null) continue;
                int d = HtmlPage.decimals(m.unit());
                out.append("<tr data-metric=\"").append(m.jsonKey()).append("\"><td>").append(Html.esc(m.label()))
                        .append("</td><td class=\"num\">").append(st.count()).append("</td><td class=\"num\">")
                        .append(Html.fixed(st.p50(), d)).append("</td><td class=\"num\">")
                        .append(Html.fixed(st.p90(), d)).append("</td><td class=\"num\">")
                        .append(Html.fixed(st.p99(), d)).append("</td><td class=\"num\">")
                        .append(Html.fixed(st.mean(), d)).append("</td><td>")
                        .append(Html.esc(m.unit().reportName())).append("</td></tr>\n");
            }
            out.append("</tbody></table>\n");
            ServerSideSummary server = s.server();
            if (server != null) {
                // the peaks are the highest of samples so far apart (a burst between two scrapes is not seen)
                out.append("<p class=\"caption server\">Server (").append(Html.esc(String.valueOf(server.engine())))
                        .append("): generation ").append(Html.fixed(server.generationTokensPerS(), 1))
                        .append(" tok/s by its own counter");
                if (server.countersPartial(ServerSideSummarizer.EDGE_SLACK_NANOS / 1e9)) {
                    out.append(" (its counters cover ").append(Html.fixed(server.countedToS() - server.countedFromS(), 2))
                            .append(" of the ").append(Html.fixed(server.windowS(), 2)).append(" s window)");
                }
                if (server.countersReset()) out.append(" (a counter reset: a lower bound)");
                String edges = ServerCharts.edgeScrapes(server);
                if (edges != null) out.append("; ").append(Html.esc(edges));
                if (s.warnings() != null && s.warnings().stream()
                        .anyMatch(w -> ServerCharts.TOKENS_DIFFER.equals(w.code()))) {
                    out.append("; <strong class=\"server-tokens-differ\">its token counters and the client's counts "
                            + "differ (").append(ServerCharts.TOKENS_DIFFER).append(")</strong>");
                }
                if (server.prefixCacheHitRate() != null) {
                    out.append("; prefix-cache hit rate ").append(Html.esc(Html.percent(server.prefixCacheHitRate())));
                }
                out.append("; ").append(Html.esc(server.peakWords())).append(": running ")
                        .append(Html.fixed(server.peakRequestsRunning(), 0)).append(", waiting ")
                        .append(Html.fixed(server.peakRequestsWaiting(), 0)).append(", KV cache ")
                        .append(Html.esc(Html.percent(server.peakKvCacheUsage()))).append(".</p>\n");
            }
            out.append("</div>\n");
        }
        out.append("</section>\n");
    }

    private static String anchor(SweepFiles.Level l) {
        return Html.data(l.level()).replace('.', '_');
    }

    // ---------------------------------------------------------------- footer

    private void footer() {
        out.append("<footer id=\"method\">\n<h2>Method</h2>\n<ul>\n")
                .append("<li>").append(Html.esc("Read from " + data.base() + SweepFiles.JSON_SUFFIX + " (the plan, "
                        + "the verdict and one row per level)" + (data.anySummary()
                        ? " and each level's *_llmperf4j_summary.json in its own folder."
                        : (data.ofIterations() ? "; a sweep of iterations writes no level summary (its scores are in "
                        + data.base() + IterationsFile.SUFFIX + " and " + data.base() + JmhFile.SUFFIX + ")."
                        : "; no level has a summary in its folder.")))).append("</li>\n")
                .append(data.anySummary() ? "<li>Percentiles: each level's summary's (successful requests only)"
                        + (openLoop ? ", from the actual send; TTFT from the intended send is the sweep file's" : "")
                        + ". TPOT is per request; ITL pools every gap between content events.</li>\n"
                        : "<li>Percentiles: the sweep file's TTFT and E2E p50 and p90 of each level (successful "
                        + "requests only); without summaries, no TPOT, ITL or p99.</li>\n")
                .append("<li>Hover a point for its values; every point also carries them as data-x and data-y."
                        + "</li>\n")
                .append("<li>This page is self-contained: no scripts, no fonts or images from elsewhere, no links to "
                        + "other sites (only to the levels' own "
                        + (data.ofIterations() ? "pages of iterations" : "reports") + " beside it).</li>\n")
                .append("</ul>\n<p>Generated by llmperf4j").append(Html.esc(toolVersion().isEmpty() ? "" : " " + toolVersion()))
                .append(".</p>\n</footer>\n");
    }

    /** The version the levels' summaries name; empty when none has one (a sweep of iterations writes none). */
    private String toolVersion() {
        for (SweepData.Level l : levels) {
            if (l.summary() != null && l.summary().tool() != null && l.summary().tool().version() != null) {
                return l.summary().tool().version();
            }
        }
        return "";
    }

    private static List<String> nonNull(List<String> list) {
        return list == null ? List.of() : list;
    }
}

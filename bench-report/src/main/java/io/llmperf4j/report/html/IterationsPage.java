package io.llmperf4j.report.html;

import io.llmperf4j.report.output.IterationsFile;
import io.llmperf4j.report.output.JmhFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * The page of JMH-style iterations: per level, output tok/s of every iteration over time (warmup and measured
 * iterations apart, hoverable), the measured iterations' mean, and the table of every iteration. Read from
 * {@code <base>_iterations.csv} alone. One instance per page.
 */
final class IterationsPage {

    /**
     * The score of one level in {@code <base>_jmh.json}: its mean and the half-width of its 99.9 % interval; both NaN
     * when the level has no score (the harness writes NaN when every measured request failed).
     */
    record JmhScore(double score, double error) {
        boolean none() {
            return Double.isNaN(score);
        }
    }

    private final String base;
    private final List<IterationsFile.Row> rows;
    private final Map<String, JmhScore> scores;
    /** The sweep page this level's page belongs to, or null for a folder of iterations of its own. */
    private final String sweepHref;
    private final boolean simulated;
    private final StringBuilder out = new StringBuilder(32 * 1024);

    IterationsPage(String base, List<IterationsFile.Row> rows) {
        this(base, rows, Map.of());
    }

    /** With the levels' scores from {@code <base>_jmh.json}, keyed by "load_unit level" ("concurrency 4"). */
    IterationsPage(String base, List<IterationsFile.Row> rows, Map<String, JmhScore> scores) {
        this(base, rows, scores, null);
    }

    /** One level of a sweep of iterations, its page linking back to the sweep's ({@code sweepHref}). */
    IterationsPage(String base, List<IterationsFile.Row> rows, Map<String, JmhScore> scores, String sweepHref) {
        this(base, rows, scores, sweepHref, false);
    }

    /**
     * @param simulated the iterations ran against the embedded simulated server ({@link
     *                  SimulatedNotice#simulatedIterations}): the header says so
     */
    IterationsPage(String base, List<IterationsFile.Row> rows, Map<String, JmhScore> scores, String sweepHref,
                   boolean simulated) {
        this.base = base;
        this.rows = List.copyOf(rows);
        this.scores = Map.copyOf(scores);
        this.sweepHref = sweepHref;
        this.simulated = simulated;
    }

    /**
     * The page of one level of a sweep of iterations, {@code <base>_<concurrency|rate>_<level>_report.html} beside
     * the sweep's files (such a sweep keeps no folder per level; the name is the level folder's a sweep without
     * iterations writes, after the base).
     *
     * @param loadUnit the iterations file's load unit ("concurrency", "req/s"; a sweep file's "sessions/s" is a rate
     *                 too)
     * @param level    the level as the iterations file writes it ("4", "2.5")
     */
    static String levelFileName(String base, String loadUnit, String level) {
        return base + "_" + (SweepData.openLoopUnit(loadUnit) ? "rate" : loadUnit) + "_" + level
                + HtmlReport.FILE_SUFFIX;
    }

    /**
     * The primary scores of {@code <base>_jmh.json} in {@code dir} ({@link JmhFile}), keyed by "load_unit level" of
     * the rows they match, NaN for a level without a score; empty when the file is absent or unreadable (the page
     * then shows the iterations' mean from the CSV).
     */
    static Map<String, JmhScore> readScores(Path dir, String base, List<IterationsFile.Row> rows) {
        Path file = dir.resolve(base + JmhFile.SUFFIX);
        Map<String, JmhScore> out = new LinkedHashMap<>();
        if (!Files.isRegularFile(file)) return out;
        try {
            for (JmhFile.Entry entry : JmhFile.read(file)) {
                double score = entry.score() == null ? Double.NaN : entry.score();
                double error = entry.scoreError() == null ? Double.NaN : entry.scoreError();
                rows.stream().filter(r -> entry.isLevel(r.loadUnit(), r.level())).findFirst().ifPresent(r ->
                        out.put(r.loadUnit() + " " + r.level(), new JmhScore(score, error)));
            }
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
        return out;
    }

    String render() {
        out.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
                .append("<title>llmperf4j iterations: ").append(Html.esc(base)).append("</title>\n")
                .append("<style>\n").append(HtmlPage.CSS).append("\n</style>\n</head>\n<body>\n<main>\n")
                .append("<header>\n<h1>llmperf4j iterations: <span class=\"model\">").append(Html.esc(base))
                .append("</span></h1>\n<p class=\"sub\">").append(rows.size()).append(" iterations");
        if (sweepHref != null) {
            out.append(" \u00b7 one level of <a href=\"").append(Html.esc(sweepHref)).append("\">the sweep</a>");
        }
        out.append("</p>\n").append(SimulatedNotice.paragraph(simulated)).append("</header>\n");
        LinkedHashSet<String> levels = new LinkedHashSet<>();
        for (IterationsFile.Row r : rows) levels.add(r.level());
        int n = 0;
        for (String level : levels) {
            level(n++, level, rows.stream().filter(r -> r.level().equals(level)).toList());
        }
        out.append("<footer id=\"method\">\n<h2>Method</h2>\n<ul>\n<li>Read from ").append(Html.esc(base))
                .append(IterationsFile.SUFFIX).append(sweepHref == null ? "" : " (this level's rows)")
                .append(". Warmup iterations are drawn but left out of the mean. Hover "
                        + "a point for its values.</li>\n<li>This page is self-contained: no scripts, nothing fetched "
                        + "from elsewhere"
                        + (sweepHref == null ? "" : ", no link but to the sweep's page beside it") + ".</li>\n</ul>\n"
                        + "</footer>\n</main>\n</body>\n</html>\n");
        return out.toString();
    }

    private void level(int index, String level, List<IterationsFile.Row> its) {
        String unit = its.get(0).loadUnit();
        List<IterationsFile.Row> measured = its.stream().filter(r -> !"warmup".equals(r.iterationType())).toList();
        List<IterationsFile.Row> warmup = its.stream().filter(r -> "warmup".equals(r.iterationType())).toList();
        JmhScore score = scores.get(unit + " " + level);
        // the harness's score when its file is there (NaN: no score), else the mean of the CSV's rates
        double mean = score != null ? score.score() : measured.stream().filter(r -> r.outputTokS() != null)
                .mapToDouble(IterationsFile.Row::outputTokS).average().orElse(Double.NaN);
        out.append("<section id=\"iterations-").append(index).append("\" class=\"iterations\" data-level=\"")
                .append(Html.esc(level)).append("\">\n<h2>").append(Html.esc(unit + " " + level)).append("</h2>\n")
                .append("<p>Measured iterations: ").append(measured.size());
        if (score != null && score.none()) {
            int failed = measured.stream().mapToInt(IterationsFile.Row::requestsFailed).sum();
            out.append(", <strong class=\"mean\">no score: every measured request failed (").append(failed)
                    .append(" of ").append(failed).append(")</strong>, as ").append(Html.esc(base))
                    .append(JmhFile.SUFFIX).append(" and the console say (a rate of 0 from failed requests is no "
                            + "measure of the server's pace)");
        } else {
            out.append(", mean output tok/s <strong class=\"mean\">").append(Html.fixed(mean, 2)).append("</strong>");
        }
        if (score != null && score.none()) {
            // said above
        } else if (score != null && Double.isFinite(score.error())) {
            out.append(" <span class=\"ci\">± ").append(Html.fixed(score.error(), 2)).append("</span> (99.9 % "
                    + "confidence interval of the mean over the measured iterations, Student's t, as JMH and the "
                    + "console print it; from ").append(Html.esc(base)).append(JmhFile.SUFFIX).append(")");
        } else if (measured.size() < 2) {
            out.append(" (one measured iteration: no interval)");
        }
        int failed = measured.stream().mapToInt(IterationsFile.Row::requestsFailed).sum();
        int total = failed + measured.stream().mapToInt(IterationsFile.Row::requestsCompleted).sum();
        if (failed > 0 && failed < total) { // all failed: said above, as "no score"
            // as the console says it (JmhTextFormat): the score counts the successful requests' tokens alone
            out.append(". <strong class=\"failed\">failed: ").append(failed).append(" of ").append(total)
                    .append(" measured requests (").append(Html.esc(Html.percent((double) failed / total)))
                    .append(")</strong>: the score counts the tokens of those that succeeded");
        }
        out.append("</p>\n<div class=\"charts\">");
        SvgChart.Builder chart = SvgChart.builder("iterations-tps-" + index, "Output tok/s per iteration")
                .x(SvgChart.Axis.linear("Iteration start", "s").includingZero())
                .y(SvgChart.Axis.linear("Output throughput", "tok/s").includingZero())
                .add(series("measured", Palette.GREEN, measured, "measured"))
                .emptyMessage("No iteration");
        if (!warmup.isEmpty()) chart.add(series("warmup", Palette.GREY, warmup, "warmup").withShape(SvgChart.Shape.CROSS));
        if (Double.isFinite(mean)) {
            chart.mark(SvgChart.Marker.horizontal(mean, "mean " + Html.fixed(mean, 1), Palette.GREY, "marker-mean"));
        }
        out.append("<div class=\"card\">").append(chart.build().toSvg()).append("</div>\n</div>\n")
                .append("<div class=\"card\"><table><thead><tr><th class=\"num\">fork</th><th>type</th>"
                        + "<th class=\"num\">iteration</th><th class=\"num\">start (s)</th><th class=\"num\">"
                        + "duration (s)</th><th class=\"num\">output tok/s</th><th class=\"num\">req/s</th>"
                        + "<th class=\"num\">ok</th><th class=\"num\">failed</th><th class=\"num\">TTFT mean (ms)</th>"
                        + "<th class=\"num\">TPOT mean (ms)</th></tr></thead>\n<tbody>\n");
        for (IterationsFile.Row r : its) {
            out.append(r.requestsFailed() > 0 ? "<tr class=\"has-failures\">" : "<tr>")
                    .append("<td class=\"num\">").append(r.fork()).append("</td><td>").append(Html.esc(r.iterationType()))
                    .append("</td><td class=\"num\">").append(r.iteration()).append("</td><td class=\"num\">")
                    .append(Html.fixed(r.startOffsetS(), 3)).append("</td><td class=\"num\">")
                    .append(Html.fixed(r.durationS(), 3)).append("</td><td class=\"num\">")
                    .append(Html.fixed(r.outputTokS(), 2)).append("</td><td class=\"num\">")
                    .append(Html.fixed(r.requestsS(), 3)).append("</td><td class=\"num\">")
                    .append(r.requestsCompleted()).append("</td><td class=\"num\">").append(r.requestsFailed())
                    .append("</td><td class=\"num\">").append(Html.fixed(r.ttftMeanMs(), 1))
                    .append("</td><td class=\"num\">").append(Html.fixed(r.tpotMeanMs(), 2)).append("</td></tr>\n");
        }
        out.append("</tbody></table></div>\n</section>\n");
    }

    private static SvgChart.Series series(String name, String color, List<IterationsFile.Row> its, String css) {
        double[] xs = its.stream().mapToDouble(IterationsFile.Row::startOffsetS).toArray();
        double[] ys = its.stream().mapToDouble(r -> r.outputTokS() == null ? Double.NaN : r.outputTokS()).toArray();
        String[] titles = its.stream().map(r -> "fork " + r.fork() + ", " + r.iterationType() + " iteration "
                + r.iteration() + ": " + Html.fixed(r.outputTokS(), 1) + " output tok/s").toArray(String[]::new);
        return SvgChart.Series.markers(name + " (" + its.size() + ")", color, xs, ys).withTitles(titles).withClass(css);
    }
}

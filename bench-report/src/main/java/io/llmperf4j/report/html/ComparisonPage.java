package io.llmperf4j.report.html;

import io.llmperf4j.report.metrics.Metric;
import io.llmperf4j.report.output.ComparisonFile;
import io.llmperf4j.report.summary.SummaryDocument;
import java.util.AbstractMap;
import java.util.List;

/**
 * The page of several models under one load: output throughput against E2E latency per model (and against load
 * when there are several levels), hoverable, then the table of every model and level with links to their own
 * reports. One instance per page.
 */
final class ComparisonPage {

    private static final String[] COLORS = {Palette.BLUE, Palette.ORANGE, Palette.GREEN, Palette.RED, Palette.PURPLE,
        Palette.GREY};

    private final ComparisonData data;
    private final StringBuilder out = new StringBuilder(32 * 1024);

    ComparisonPage(ComparisonData data) {
        this.data = data;
    }

    String render() {
        List<String> models = data.models();
        out.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
                .append("<title>llmperf4j comparison of ").append(models.size()).append(" models</title>\n")
                .append("<style>\n").append(HtmlPage.CSS).append("\n</style>\n</head>\n<body>\n<main>\n")
                .append("<header>\n<h1>llmperf4j comparison: <span class=\"model\">")
                .append(Html.esc(String.join(", ", models))).append("</span></h1>\n<p class=\"sub\">")
                .append(Html.esc("the same workload and load for every model; " + data.levels().size()
                        + (data.levels().size() == 1 ? " level" : " levels"))).append("</p>\n")
                .append(SimulatedNotice.paragraph(SimulatedNotice.byName(data.rows().stream()
                        .map(r -> new AbstractMap.SimpleImmutableEntry<>(r.row().model(), r.summary())).toList())))
                .append("</header>\n");
        charts(models);
        table();
        out.append("<footer id=\"method\">\n<h2>Method</h2>\n<ul>\n<li>Read from comparison.csv and the summary in "
                + "each model's folder. Hover a point for its values.</li>\n<li>This page is self-contained: no "
                + "scripts, nothing fetched from elsewhere.</li>\n</ul>\n</footer>\n</main>\n</body>\n</html>\n");
        return out.toString();
    }

    private void charts(List<String> models) {
        boolean severalLevels = data.levels().size() > 1;
        String unit = data.rows().isEmpty() ? "" : data.rows().get(0).row().loadUnit();
        SvgChart.Builder curve = SvgChart.builder("comparison-latency-throughput",
                        "Output throughput vs E2E latency p50")
                .x(SvgChart.Axis.linear("E2E latency p50", "ms").includingZero())
                .y(SvgChart.Axis.linear("Output throughput", "tok/s").includingZero())
                .emptyMessage("No level of any model succeeded");
        SvgChart.Builder vsLoad = SvgChart.builder("comparison-throughput", "Output throughput vs load")
                .x(SvgChart.Axis.linear("Load", unit))
                .y(SvgChart.Axis.linear("Output throughput", "tok/s").includingZero());
        for (int m = 0; m < models.size(); m++) {
            String model = models.get(m);
            List<ComparisonData.Row> rows = data.rows().stream().filter(r -> r.row().model().equals(model)).toList();
            double[] e2e = rows.stream().mapToDouble(r -> value(r.row().e2eP50Ms())).toArray();
            double[] tps = rows.stream().mapToDouble(r -> value(r.row().outputTokS())).toArray();
            double[] load = rows.stream().mapToDouble(r -> level(r.row().level())).toArray();
            String[] titles = new String[rows.size()];
            for (int i = 0; i < titles.length; i++) {
                titles[i] = model + " at " + rows.get(i).row().level() + " " + unit + ": " + Html.fixed(tps[i], 1)
                        + " output tok/s, E2E p50 " + Html.fixed(e2e[i], 1) + " ms";
            }
            String color = COLORS[m % COLORS.length];
            String css = "model-" + m;
            curve.add(SvgChart.Series.lineMarkers(model, color, e2e, tps).withTitles(titles).withClass(css));
            vsLoad.add(SvgChart.Series.lineMarkers(model, color, load, tps).withTitles(titles).withClass(css));
        }
        out.append("<section id=\"comparison\">\n<h2>Models</h2>\n<div class=\"charts\">\n");
        card(curve, "Each point is a model at a level: up and to the left is better.");
        if (severalLevels) card(vsLoad, "Each model's output tokens per second at each level.");
        out.append("</div>\n</section>\n");
    }

    private void card(SvgChart.Builder chart, String caption) {
        out.append("<div class=\"card\">").append(chart.build().toSvg()).append("<p class=\"caption\">")
                .append(Html.esc(caption)).append("</p></div>\n");
    }

    private void table() {
        out.append("<section id=\"comparison-table\">\n<h2>Every model and level</h2>\n<div class=\"card\">\n"
                + "<table class=\"comparison\">\n<thead><tr><th>model</th><th class=\"num\">level</th>"
                + "<th class=\"num\">ok / total</th><th class=\"num\">output tok/s</th><th class=\"num\">req/s</th>"
                + "<th class=\"num\">TTFT p50</th><th class=\"num\">TTFT p90</th><th class=\"num\">TTFT p99</th>"
                + "<th class=\"num\">TPOT p90</th><th class=\"num\">E2E p50</th><th class=\"num\">E2E p90</th>"
                + "<th class=\"num\">E2E p99</th><th>report</th></tr></thead>\n<tbody>\n");
        for (ComparisonData.Row r : data.rows()) {
            ComparisonFile.Row row = r.row();
            out.append("<tr data-model=\"").append(Html.esc(row.model())).append("\" data-level=\"")
                    .append(Html.esc(row.level())).append("\"><td>").append(Html.esc(row.model()))
                    .append(row.aborted() ? " (aborted)" : "").append("</td><td class=\"num\">")
                    .append(Html.esc(row.level())).append("</td><td class=\"num\">").append(row.successes())
                    .append(" / ").append(row.total()).append("</td><td class=\"num\">")
                    .append(Html.fixed(row.outputTokS(), 1)).append("</td><td class=\"num\">")
                    .append(Html.fixed(row.requestsS(), 2)).append("</td><td class=\"num\">")
                    .append(Html.fixed(row.ttftP50Ms(), 1)).append("</td><td class=\"num\">")
                    .append(Html.fixed(row.ttftP90Ms(), 1)).append("</td><td class=\"num\">")
                    .append(p99(r, Metric.TTFT)).append("</td><td class=\"num\">").append(p90(r, Metric.TPOT))
                    .append("</td><td class=\"num\">").append(Html.fixed(row.e2eP50Ms(), 1))
                    .append("</td><td class=\"num\">").append(Html.fixed(row.e2eP90Ms(), 1))
                    .append("</td><td class=\"num\">").append(p99(r, Metric.E2E_LATENCY)).append("</td><td>");
            if (r.reportHref() != null) {
                out.append("<a href=\"").append(Html.esc(r.reportHref())).append("\">report</a>");
            }
            out.append("</td></tr>\n");
        }
        out.append("</tbody>\n</table>\n<p class=\"caption\">Latencies in ms, successful requests only; p99 and "
                + "TPOT from each folder's summary.</p>\n</div>\n</section>\n");
    }

    private static String p99(ComparisonData.Row r, Metric metric) {
        SummaryDocument.StatsJson s = r.summary() == null ? null : r.summary().metrics().get(metric.jsonKey());
        return s == null ? "-" : Html.fixed(s.p99(), 1);
    }

    private static String p90(ComparisonData.Row r, Metric metric) {
        SummaryDocument.StatsJson s = r.summary() == null ? null : r.summary().metrics().get(metric.jsonKey());
        return s == null ? "-" : Html.fixed(s.p90(), 1);
    }

    private static double value(Double v) {
        return v == null ? Double.NaN : v;
    }

    private static double level(String level) {
        try {
            return Double.parseDouble(level);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }
}

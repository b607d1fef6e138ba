package io.llmperf4j.report.search;

import io.llmperf4j.report.html.SvgChart;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * {@code <base>_search.html}: one self-contained page (inline SVG and CSS, no script): the verdict, a chart per
 * objective of its estimate against load with the 95 % interval's ends and the SLO line, and the table of levels.
 */
final class SearchHtml {
    private static final String PASS = "#2ca02c";
    private static final String FAIL = "#d62728";
    private static final String BAND = "#7f7f7f";
    private static final String LIMIT = "#9467bd";
    private static final String CAPACITY = "#1f77b4";

    private SearchHtml() {
    }

    static String render(SearchDocument doc) {
        StringBuilder out = new StringBuilder();
        out.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Capacity search: ")
                .append(esc(doc.model())).append("</title>\n<style>\n")
                .append("body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px}")
                .append("table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}")
                .append(".fail{color:").append(FAIL).append("}.pass{color:").append(PASS).append("}")
                .append(".charts{display:flex;flex-wrap:wrap;gap:1em}\n</style>\n</head>\n<body>\n");
        out.append("<h1>Capacity search: ").append(esc(doc.model())).append("</h1>\n");
        out.append("<p id=\"verdict\"><strong>").append(esc(doc.verdict())).append("</strong></p>\n<ul>\n");
        out.append("<li>Objectives: ").append(esc(String.join(", ", doc.objectives()))).append("</li>\n");
        SearchDocument.Settings s = doc.settings();
        out.append("<li>Search over ").append(esc(doc.search())).append(" from ").append(num(s.start())).append(" to ")
                .append(num(s.max())).append(", tolerance ").append(num(100 * s.tolerance())).append(" %, each level ")
                .append(esc(s.levelMax())).append(" at most, early stop after ").append(s.minSamples())
                .append(" requests at ").append(num(100 * s.confidence())).append(" % confidence; ")
                .append(esc(s.load())).append("</li>\n");
        for (String w : doc.warnings()) out.append("<li class=\"fail\">").append(esc(w)).append("</li>\n");
        out.append("</ul>\n<div class=\"charts\">\n");
        for (int i = 0; i < doc.objectives().size(); i++) out.append(chart(doc, i)).append('\n');
        out.append("</div>\n<h2>Levels</h2>\n<table id=\"levels\">\n<tr><th>#</th><th>phase</th><th>")
                .append(esc(doc.unit())).append("</th><th>verdict</th><th>stop</th><th>requests</th><th>req/s</th>")
                .append("<th>goodput/s</th><th>binding objective</th><th>estimate</th><th>95 % interval</th></tr>\n");
        for (SearchDocument.Level l : doc.levels()) {
            SearchDocument.Objective b = l.objectives().stream().filter(o -> o.objective().equals(l.bindingObjective()))
                    .findFirst().orElse(l.objectives().get(0));
            out.append("<tr><td>").append(l.index()).append("</td><td>").append(l.phase()).append("</td><td>")
                    .append(num(l.load())).append(l.scheduledS() == null && l.sentS() == null ? ""
                            : " (scheduled " + num(l.scheduledS()) + ", sent " + num(l.sentS()) + ")")
                    .append("</td><td class=\"").append(l.passed() ? "pass" : "fail")
                    .append("\">").append(l.passed() ? "pass" : "fail").append(l.resolved() ? "" : " (estimate)")
                    .append(l.clientBehind() == null ? "" : "; " + esc(SearchConsole.clientBehindClause(l)))
                    .append("</td><td>").append(l.stop()).append("</td><td>").append(l.samples()).append("</td><td>")
                    .append(num(l.requestsS())).append("</td><td>").append(num(l.goodputS())).append("</td><td>")
                    .append(esc(l.bindingObjective())).append("</td><td>").append(num(b.estimate()))
                    .append("</td><td>[").append(num(b.low())).append(", ").append(num(b.high()))
                    .append("]</td></tr>\n");
        }
        out.append("</table>\n</body>\n</html>\n");
        return out.toString();
    }

    private static String chart(SearchDocument doc, int objective) {
        List<SearchDocument.Level> levels = new ArrayList<>(doc.levels());
        levels.sort(Comparator.comparingDouble(SearchDocument.Level::load));
        int n = levels.size();
        double[] load = new double[n];
        double[] estimate = new double[n];
        double[] low = new double[n];
        double[] high = new double[n];
        List<Double> passX = new ArrayList<>();
        List<Double> passY = new ArrayList<>();
        List<Double> failX = new ArrayList<>();
        List<Double> failY = new ArrayList<>();
        SearchDocument.Objective first = doc.levels().get(0).objectives().get(objective);
        for (int i = 0; i < n; i++) {
            SearchDocument.Objective o = levels.get(i).objectives().get(objective);
            load[i] = levels.get(i).load();
            estimate[i] = value(o.estimate());
            low[i] = value(o.low());
            high[i] = value(o.high());
            (o.passed() ? passX : failX).add(load[i]);
            (o.passed() ? passY : failY).add(estimate[i]);
        }
        String unit = first.unit().equals("ms") ? "ms" : null;
        SvgChart.Builder chart = SvgChart.builder("objective-" + objective, first.objective() + " against load")
                .x(SvgChart.Axis.linear("Load", doc.unit()).withTicks(load))
                .y(SvgChart.Axis.linear(first.unit().equals("ms") ? "Estimate" : "Fraction", unit).includingZero())
                .add(SvgChart.Series.line("estimate", BAND, load, estimate))
                .add(SvgChart.Series.line("95 % low", BAND, load, low).asDashed())
                .add(SvgChart.Series.line("95 % high", BAND, load, high).asDashed())
                .add(SvgChart.Series.markers("met", PASS, array(passX), array(passY)))
                .add(SvgChart.Series.markers("missed", FAIL, array(failX), array(failY))
                        .withShape(SvgChart.Shape.CROSS))
                .mark(SvgChart.Marker.horizontal(first.limit(), "SLO " + num(first.limit())
                        + (unit == null ? "" : " " + unit), LIMIT, "marker-slo"));
        if (doc.capacity() != null) {
            chart.mark(SvgChart.Marker.vertical(doc.capacity(), "capacity " + num(doc.capacity()), CAPACITY,
                    "marker-capacity"));
        }
        return chart.build().toSvg();
    }

    private static double value(Double v) {
        return v == null ? Double.NaN : v;
    }

    private static double[] array(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    static String num(Double v) {
        if (v == null || !Double.isFinite(v)) return "-";
        if (v == Math.rint(v) && Math.abs(v) < 1e15) return Long.toString((long) (double) v);
        return String.format(Locale.ROOT, Math.abs(v) >= 100 ? "%.1f" : "%.3g", v);
    }

    static String esc(String text) {
        if (text == null) return "";
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}

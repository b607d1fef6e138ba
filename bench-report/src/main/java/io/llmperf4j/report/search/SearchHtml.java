package io.llmperf4j.report.search;

import io.llmperf4j.report.html.SimulatedNotice;
import io.llmperf4j.report.html.SvgChart;
import io.llmperf4j.report.summary.SummaryDocument;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * {@code <base>_search.html}: one self-contained page (inline SVG and CSS, no script): the verdict, a chart per
 * objective of its estimate against load with the 95 % interval's ends and the SLO line, the table of levels (each
 * linking its own report, with the notes the console gives its row) and each level's own warnings.
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
        return render(doc, level -> null);
    }

    /**
     * The page, each level linking its own report where {@code levelPage} gives one (its path relative to the search's
     * folder, or null). A search the document says ran against the embedded simulated server ({@code simulated})
     * says so under its title, as a run's page does.
     */
    static String render(SearchDocument doc, Function<SearchDocument.Level, String> levelPage) {
        StringBuilder out = new StringBuilder();
        out.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Capacity search: ")
                .append(esc(doc.model())).append("</title>\n<style>\n")
                .append("body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px}")
                .append("table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}")
                .append("td.notes{text-align:left}")
                .append(".fail{color:").append(FAIL).append("}.pass{color:").append(PASS).append("}")
                .append(".charts{display:flex;flex-wrap:wrap;gap:1em}").append(SimulatedNotice.CSS)
                .append("\n</style>\n</head>\n<body>\n");
        out.append("<h1>Capacity search: ").append(esc(doc.model())).append("</h1>\n");
        // the model's name may be a real one's
        out.append(SimulatedNotice.paragraph(Boolean.TRUE.equals(doc.simulated())));
        out.append("<p id=\"verdict\"><strong>").append(esc(doc.verdict())).append("</strong></p>\n<ul>\n");
        out.append("<li>Objectives: ").append(esc(String.join(", ", doc.objectives()))).append("</li>\n");
        SearchDocument.Settings s = doc.settings();
        if (s != null) {
            out.append("<li>Search over ").append(esc(doc.search())).append(" from ").append(num(s.start()))
                    .append(" to ").append(num(s.max())).append(", tolerance ").append(num(100 * s.tolerance()))
                    .append(" %, each level ").append(esc(s.levelMax())).append(" at most, early stop after ")
                    .append(s.minSamples()).append(" requests at ").append(num(100 * s.confidence()))
                    .append(" % confidence; ").append(esc(s.load())).append("</li>\n");
        }
        for (String w : doc.warnings()) out.append("<li class=\"fail\">").append(esc(w)).append("</li>\n");
        out.append("</ul>\n<div class=\"charts\">\n");
        for (int i = 0; i < doc.objectives().size(); i++) out.append(chart(doc, i)).append('\n');
        boolean rate = doc.search().equals("rate");
        // a rate search's load is the mean its arrivals were drawn at: the schedule drawn, the sends and the
        // completions are three other rates, each named (a search of sessions: sessions/s, completions req/s)
        String unit = esc(doc.unit());
        out.append("</div>\n<h2>Levels</h2>\n<table id=\"levels\">\n<tr><th>#</th><th>phase</th><th>")
                .append(rate ? "rate (" + unit + ")</th><th>scheduled " + unit + "</th><th>"
                        + SearchConsole.sentWord(doc) + " " + unit : "concurrency")
                .append("</th><th>verdict</th><th>stop</th><th title=\"requests the verdict judged / requests that "
                        + "completed in the level's window (failures included), which the rates count\">"
                        + "judged/completed</th><th>completed req/s</th><th>goodput req/s</th>"
                        + "<th>binding objective</th><th>estimate</th><th>95 % interval</th><th>notes</th></tr>\n");
        for (SearchDocument.Level l : doc.levels()) {
            SearchDocument.Objective b = l.objectives().stream().filter(o -> o.objective().equals(l.bindingObjective()))
                    .findFirst().orElse(l.objectives().get(0));
            String page = levelPage.apply(l);
            out.append("<tr data-index=\"").append(l.index()).append("\"><td>").append(l.index()).append("</td><td>")
                    .append(l.phase()).append("</td><td>")
                    .append(page == null ? num(l.load()) : "<a href=\"" + esc(page) + "\">" + num(l.load()) + "</a>");
            if (rate) {
                out.append("</td><td>").append(num(l.scheduledS())).append("</td><td>").append(num(l.sentS()));
            }
            out.append("</td><td class=\"").append(l.passed() ? "pass" : "fail")
                    .append("\">").append(l.passed() ? "pass" : "fail").append(l.resolved() ? "" : " (estimate)")
                    .append("</td><td>").append(l.stop()).append("</td><td>")
                    .append(SearchConsole.judgedOfCompleted(l)).append("</td><td>")
                    .append(num(l.requestsS())).append("</td><td>").append(num(l.goodputS())).append("</td><td>")
                    .append(esc(l.bindingObjective())).append("</td><td>").append(esc(SearchConsole.estimate(b)))
                    .append("</td><td>").append(esc(SearchConsole.interval(b))).append("</td><td class=\"notes\">")
                    .append(esc(String.join("; ", notes(l)))).append("</td></tr>\n");
        }
        out.append("</table>\n");
        // each level's own warnings (its summary's), per level: the console merges them one line per code
        if (doc.levels().stream().anyMatch(l -> !l.warnings().isEmpty())) {
            out.append("<h2>Warnings of each level</h2>\n<ul id=\"level-warnings\">\n");
            for (SearchDocument.Level l : doc.levels()) {
                for (SummaryDocument.WarningJson w : l.warnings()) {
                    out.append("<li data-level=\"").append(l.index()).append("\">Level ").append(l.index())
                            .append(" (").append(esc(doc.search())).append(' ').append(num(l.load()))
                            .append("): <code>").append(esc(w.code())).append("</code> ").append(esc(w.message()))
                            .append("</li>\n");
                }
            }
            out.append("</ul>\n");
        }
        out.append("</body>\n</html>\n");
        return out.toString();
    }

    /** What the console says after a level's row: the objectives left unresolved, a client that fell behind. */
    private static List<String> notes(SearchDocument.Level l) {
        List<String> notes = new ArrayList<>();
        List<String> open = l.resolved() ? List.of() : l.objectives().stream().filter(o -> !o.resolved())
                .map(SearchDocument.Objective::objective).toList();
        if (!open.isEmpty()) notes.add(SearchConsole.unresolvedClause(open));
        if (l.clientBehind() != null) notes.add(SearchConsole.clientBehindClause(l));
        for (SearchDocument.Objective o : l.objectives()) {
            if (!o.missClustering().isEmpty()) notes.add(o.objective() + ": " + o.missClustering());
        }
        return notes;
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

package io.llmperf4j.report.html;

import java.util.ArrayList;
import java.util.List;

/**
 * The report's sweep section: throughput and latency against load, the verdict marked, and the sweep table. Its
 * figures are the sweep's own ({@link SweepLevel}, from the engine's level summaries, which use the same percentile
 * definition and output-token policy as the summary file).
 */
final class SweepSection {
    private final SweepReport sweep;
    private final StringBuilder out;

    SweepSection(SweepReport sweep, StringBuilder out) {
        this.sweep = sweep;
        this.out = out;
    }

    void render() {
        List<SweepLevel> levels = sweep.levels();
        String unit = sweep.loadUnit();
        double[] load = levels.stream().mapToDouble(SweepLevel::loadValue).toArray();
        double min = java.util.Arrays.stream(load).min().orElse(0);
        double max = java.util.Arrays.stream(load).max().orElse(0);
        boolean log = min > 0 && max / min >= 10;
        SvgChart.Axis xAxis = SvgChart.Axis.linear("Load", unit).withTicks(load);
        if (log) xAxis = xAxis.withScale(SvgChart.Scale.LOG);

        out.append("<section id=\"sweep\">\n<h2>Load sweep</h2>\n");
        out.append("<div class=\"card\"><ul>\n");
        out.append("<li>").append(verdict("Saturation point", sweep.saturationIndex(),
                "output tok/s stopped growing", "not reached")).append("</li>\n");
        out.append("<li>").append(verdict("TTFT red line", sweep.ttftRedLineIndex(), "TTFT p90 jumped",
                "not crossed")).append("</li>\n");
        out.append("<li>").append(verdict("First level with failures", sweep.firstFailingIndex(),
                "the service cannot hold it", "none")).append("</li>\n");
        for (String note : sweep.notes()) out.append("<li>").append(Html.esc(note)).append("</li>\n");
        out.append("</ul></div>\n<div class=\"charts\">\n");

        double[] tps = levels.stream().mapToDouble(SweepLevel::outputTokensPerSecond).toArray();
        SvgChart.Builder throughput = SvgChart.builder("sweep-throughput", "Output throughput vs load")
                .x(xAxis)
                .y(SvgChart.Axis.linear("Output throughput", "tok/s").includingZero())
                .add(SvgChart.Series.lineMarkers("output tok/s", Palette.GREEN, load, tps).withClass("sweep-tps"));
        highlight(throughput, sweep.saturationIndex(), load, tps, "#6a3d9a", "saturation point");
        marks(throughput);
        card(throughput, "System output tokens per second at each level.");

        double[] t50 = levels.stream().mapToDouble(SweepLevel::ttftP50Ms).toArray();
        double[] t90 = levels.stream().mapToDouble(SweepLevel::ttftP90Ms).toArray();
        SvgChart.Builder ttft = SvgChart.builder("sweep-ttft", "TTFT vs load")
                .x(xAxis)
                .y(SvgChart.Axis.linear("TTFT", "ms").includingZero())
                .add(SvgChart.Series.lineMarkers("p50", Palette.BLUE, load, t50).withClass("sweep-ttft-p50"))
                .add(SvgChart.Series.lineMarkers("p90", Palette.RED, load, t90).asDashed().withClass("sweep-ttft-p90"));
        highlight(ttft, sweep.ttftRedLineIndex(), load, t90, Palette.RED, "red line");
        marks(ttft);
        card(ttft, "Successful requests' TTFT percentiles at each level; a level with none is a gap.");

        double[] e50 = levels.stream().mapToDouble(SweepLevel::e2eP50Ms).toArray();
        double[] e90 = levels.stream().mapToDouble(SweepLevel::e2eP90Ms).toArray();
        SvgChart.Builder e2e = SvgChart.builder("sweep-e2e", "E2E latency vs load")
                .x(xAxis)
                .y(SvgChart.Axis.linear("E2E latency", "ms").includingZero())
                .add(SvgChart.Series.lineMarkers("p50", Palette.ORANGE, load, e50).withClass("sweep-e2e-p50"))
                .add(SvgChart.Series.lineMarkers("p90", Palette.PURPLE, load, e90).asDashed().withClass("sweep-e2e-p90"));
        marks(e2e);
        card(e2e, "Successful requests' end-to-end latency percentiles at each level.");
        out.append("</div>\n");
        table(levels);
        out.append("</section>\n");
    }

    private String verdict(String what, java.util.OptionalInt index, String meaning, String otherwise) {
        if (index.isEmpty()) return "<strong>" + Html.esc(what) + ":</strong> " + Html.esc(otherwise);
        SweepLevel level = sweep.levels().get(index.getAsInt());
        return "<strong>" + Html.esc(what) + ":</strong> " + Html.esc(level.label()) + " (" + Html.esc(meaning)
                + ")";
    }

    private void highlight(SvgChart.Builder chart, java.util.OptionalInt index, double[] xs, double[] ys,
                           String color, String name) {
        if (index.isEmpty()) return;
        int i = index.getAsInt();
        if (!Double.isFinite(ys[i])) return;
        chart.add(SvgChart.Series.markers(name, color, new double[] {xs[i]}, new double[] {ys[i]})
                .withShape(SvgChart.Shape.RING).withClass("highlight"));
    }

    private void marks(SvgChart.Builder chart) {
        List<SweepLevel> levels = sweep.levels();
        if (sweep.saturationIndex().isPresent()) {
            chart.mark(SvgChart.Marker.vertical(levels.get(sweep.saturationIndex().getAsInt()).loadValue(),
                    "saturation", "#6a3d9a", "marker-saturation"));
        }
        if (sweep.ttftRedLineIndex().isPresent()) {
            chart.mark(SvgChart.Marker.vertical(levels.get(sweep.ttftRedLineIndex().getAsInt()).loadValue(),
                    "TTFT red line", Palette.RED, "marker-redline"));
        }
        if (sweep.firstFailingIndex().isPresent()) {
            chart.mark(SvgChart.Marker.vertical(levels.get(sweep.firstFailingIndex().getAsInt()).loadValue(),
                    "failures", "#e65100", "marker-failing"));
        }
    }

    private void card(SvgChart.Builder chart, String caption) {
        out.append("<div class=\"card\">").append(chart.build().toSvg()).append("<p class=\"caption\">")
                .append(Html.esc(caption)).append("</p></div>\n");
    }

    private void table(List<SweepLevel> levels) {
        out.append("<div class=\"card\" style=\"margin-top:12px\">\n<table class=\"sweep\">\n<thead><tr>"
                + "<th>level</th><th class=\"num\">load</th><th class=\"num\">ok / total</th>"
                + "<th class=\"num\">success</th><th class=\"num\">output tok/s</th><th class=\"num\">req/s</th>"
                + "<th class=\"num\">TTFT p50 (ms)</th><th class=\"num\">TTFT p90 (ms)</th>"
                + "<th class=\"num\">E2E p50 (ms)</th><th class=\"num\">E2E p90 (ms)</th><th>verdict</th>"
                + "</tr></thead>\n<tbody>\n");
        for (int i = 0; i < levels.size(); i++) {
            SweepLevel l = levels.get(i);
            List<String> classes = new ArrayList<>();
            StringBuilder flags = new StringBuilder();
            if (is(sweep.saturationIndex(), i)) {
                classes.add("saturation");
                flags.append("<span class=\"flag saturation\">saturation point</span>");
            }
            if (is(sweep.ttftRedLineIndex(), i)) {
                classes.add("redline");
                flags.append("<span class=\"flag redline\">TTFT red line</span>");
            }
            if (is(sweep.firstFailingIndex(), i)) {
                classes.add("failing");
                flags.append("<span class=\"flag failing\">first failures</span>");
            } else if (l.failures() > 0) {
                classes.add("has-failures");
                flags.append("<span class=\"flag\">").append(l.failures()).append(" failed</span>");
            }
            out.append("<tr data-index=\"").append(i).append('"');
            if (!classes.isEmpty()) out.append(" class=\"").append(String.join(" ", classes)).append('"');
            out.append("><td>").append(Html.esc(l.label())).append("</td><td class=\"num\">")
                    .append(Html.esc(AxisLayout.compact(l.loadValue()))).append("</td><td class=\"num\">")
                    .append(l.successes()).append(" / ").append(l.total()).append("</td><td class=\"num\">")
                    .append(Html.esc(Html.percent(l.successRate()))).append("</td><td class=\"num\">")
                    .append(Html.fixed(l.outputTokensPerSecond(), 1)).append("</td><td class=\"num\">")
                    .append(Html.fixed(l.requestsPerSecond(), 2)).append("</td><td class=\"num\">")
                    .append(Html.fixed(l.ttftP50Ms(), 1)).append("</td><td class=\"num\">")
                    .append(Html.fixed(l.ttftP90Ms(), 1)).append("</td><td class=\"num\">")
                    .append(Html.fixed(l.e2eP50Ms(), 1)).append("</td><td class=\"num\">")
                    .append(Html.fixed(l.e2eP90Ms(), 1)).append("</td><td>").append(flags).append("</td></tr>\n");
        }
        out.append("</tbody>\n</table>\n</div>\n");
    }

    private static boolean is(java.util.OptionalInt index, int i) {
        return index.isPresent() && index.getAsInt() == i;
    }
}

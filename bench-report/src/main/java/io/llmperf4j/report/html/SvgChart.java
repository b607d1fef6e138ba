package io.llmperf4j.report.html;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A small XY chart drawn as inline SVG, no library and no script: a plot area with grid lines, axes with "nice"
 * ticks (1-2-5 steps, or 1-2-5 per decade on a log axis, or ticks the caller gives), axis titles with their units,
 * a legend, and any number of series (lines, steps, markers) and reference lines (vertical or horizontal, labelled).
 *
 * <p>The SVG is well-formed XML and carries no namespace URL (inline SVG in HTML5 needs none), no external
 * reference and no {@code id} other than its own clip path's, which is prefixed with the chart id. Text is escaped.
 * Points with a NaN coordinate break a line; on a log axis, values ≤ 0 are left out.
 *
 * <pre>{@code
 * String svg = SvgChart.builder("ttft-cdf", "TTFT, empirical CDF")
 *         .x(SvgChart.Axis.linear("TTFT", "ms"))
 *         .y(SvgChart.Axis.linear("Fraction of requests", null).withRange(0, 1))
 *         .add(SvgChart.Series.step("TTFT", "#1f77b4", xs, ys))
 *         .mark(SvgChart.Marker.vertical(500, "SLO 500 ms", "#d62728", "marker-slo"))
 *         .build().toSvg();
 * }</pre>
 */
public final class SvgChart {

    /** Default width and height of a chart, in SVG user units (CSS pixels at 100 %). */
    public static final int DEFAULT_WIDTH = 640;
    public static final int DEFAULT_HEIGHT = 320;

    private static final int MARGIN_LEFT = 64;
    private static final int MARGIN_RIGHT = 20;
    private static final int TITLE_HEIGHT = 24;
    private static final int LEGEND_ROW = 16;
    private static final int MARGIN_BOTTOM = 46;
    private static final double CHAR_WIDTH = 6.2; // at 11 px, for laying out the legend
    private static final int MAX_TITLED_POINTS = 2000;
    private static final int MAX_DATA_POINTS = 500;

    /** How an axis maps values. */
    public enum Scale { LINEAR, LOG }

    /** How a series is drawn. */
    public enum Style {
        /** Straight segments between points. */
        LINE,
        /** Horizontal to the next point's x, then vertical to its y (a step function, e.g. a CDF or buckets). */
        STEP,
        /** One shape per point. */
        MARKERS,
        /** Segments and a shape per point. */
        LINE_MARKERS
    }

    /** The shape of a series' points. */
    public enum Shape { CIRCLE, RING, CROSS }

    /** Which way a reference line runs. */
    public enum Orientation { VERTICAL, HORIZONTAL }

    /**
     * One axis.
     *
     * @param label       what is plotted, e.g. "TTFT"
     * @param unit        its unit, shown in parentheses, or null
     * @param scale       linear or log
     * @param min         fixed lower end, or NaN to fit the data
     * @param max         fixed upper end, or NaN to fit the data
     * @param includeZero a linear axis fitted to the data reaches down (or up) to 0
     * @param ticks       tick values to use instead of computed ones, or null
     */
    public record Axis(String label, String unit, Scale scale, double min, double max, boolean includeZero,
                       double[] ticks) {
        public Axis {
            Objects.requireNonNull(label, "label");
            Objects.requireNonNull(scale, "scale");
            ticks = ticks == null ? null : ticks.clone();
        }

        public static Axis linear(String label, String unit) {
            return new Axis(label, unit, Scale.LINEAR, Double.NaN, Double.NaN, false, null);
        }

        public static Axis log(String label, String unit) {
            return new Axis(label, unit, Scale.LOG, Double.NaN, Double.NaN, false, null);
        }

        public Axis withScale(Scale newScale) {
            return new Axis(label, unit, newScale, min, max, includeZero, ticks);
        }

        /** A fixed range; NaN on either end keeps that end fitted to the data. */
        public Axis withRange(double newMin, double newMax) {
            return new Axis(label, unit, scale, newMin, newMax, includeZero, ticks);
        }

        public Axis includingZero() {
            return new Axis(label, unit, scale, min, max, true, ticks);
        }

        /** Ticks at exactly these values (e.g. the levels of a sweep). */
        public Axis withTicks(double... values) {
            return new Axis(label, unit, scale, min, max, includeZero, values);
        }

        /** "label (unit)", or the label alone. */
        public String title() {
            return unit == null || unit.isEmpty() ? label : label + " (" + unit + ")";
        }
    }

    /**
     * One data series; {@code xs} and {@code ys} have the same length.
     *
     * @param name        legend text, or null to leave it out of the legend
     * @param style       how it is drawn
     * @param shape       the point shape for the marker styles
     * @param color       a CSS colour, e.g. "#1f77b4"
     * @param dashed      a dashed line
     * @param xs          x values
     * @param ys          y values
     * @param pointTitles hover text per point (shown without script), or null
     * @param cssClass    a class for the series' group, or null
     */
    public record Series(String name, Style style, Shape shape, String color, boolean dashed, double[] xs,
                         double[] ys, String[] pointTitles, String cssClass) {
        public Series {
            Objects.requireNonNull(style, "style");
            Objects.requireNonNull(shape, "shape");
            Objects.requireNonNull(color, "color");
            xs = xs.clone();
            ys = ys.clone();
            if (xs.length != ys.length) {
                throw new IllegalArgumentException("xs (" + xs.length + " values) and ys (" + ys.length
                        + " values) must have the same length");
            }
            if (pointTitles != null && pointTitles.length != xs.length) {
                throw new IllegalArgumentException("pointTitles (" + pointTitles.length + ") must have one title per "
                        + "point (" + xs.length + ")");
            }
            pointTitles = pointTitles == null ? null : pointTitles.clone();
        }

        public static Series line(String name, String color, double[] xs, double[] ys) {
            return new Series(name, Style.LINE, Shape.CIRCLE, color, false, xs, ys, null, null);
        }

        public static Series step(String name, String color, double[] xs, double[] ys) {
            return new Series(name, Style.STEP, Shape.CIRCLE, color, false, xs, ys, null, null);
        }

        public static Series markers(String name, String color, double[] xs, double[] ys) {
            return new Series(name, Style.MARKERS, Shape.CIRCLE, color, false, xs, ys, null, null);
        }

        public static Series lineMarkers(String name, String color, double[] xs, double[] ys) {
            return new Series(name, Style.LINE_MARKERS, Shape.CIRCLE, color, false, xs, ys, null, null);
        }

        public Series asDashed() {
            return new Series(name, style, shape, color, true, xs, ys, pointTitles, cssClass);
        }

        public Series withShape(Shape newShape) {
            return new Series(name, style, newShape, color, dashed, xs, ys, pointTitles, cssClass);
        }

        public Series withTitles(String[] titles) {
            return new Series(name, style, shape, color, dashed, xs, ys, titles, cssClass);
        }

        public Series withClass(String newClass) {
            return new Series(name, style, shape, color, dashed, xs, ys, pointTitles, newClass);
        }
    }

    /**
     * A labelled reference line across the plot: vertical at x = value, or horizontal at y = value.
     *
     * @param cssClass a class for the marker's group (e.g. "marker-saturation"), or null
     */
    public record Marker(Orientation orientation, double value, String label, String color, String cssClass) {
        public Marker {
            Objects.requireNonNull(orientation, "orientation");
            Objects.requireNonNull(color, "color");
        }

        public static Marker vertical(double x, String label, String color, String cssClass) {
            return new Marker(Orientation.VERTICAL, x, label, color, cssClass);
        }

        public static Marker horizontal(double y, String label, String color, String cssClass) {
            return new Marker(Orientation.HORIZONTAL, y, label, color, cssClass);
        }
    }

    private final String id;
    private final String title;
    private final int width;
    private final int height;
    private final Axis x;
    private final Axis y;
    private final List<Series> series;
    private final List<Marker> markers;
    private final String emptyMessage;

    private SvgChart(Builder b) {
        this.id = b.id;
        this.title = b.title;
        this.width = b.width;
        this.height = b.height;
        this.x = b.x;
        this.y = b.y;
        this.series = List.copyOf(b.series);
        this.markers = List.copyOf(b.markers);
        this.emptyMessage = b.emptyMessage;
    }

    /**
     * Starts a chart.
     *
     * @param id    unique on the page; letters, digits, "-" and "_" only
     * @param title shown above the plot
     */
    public static Builder builder(String id, String title) {
        return new Builder(id, title);
    }

    /** Collects a chart's parts; {@link #build()} checks them. */
    public static final class Builder {
        private final String id;
        private final String title;
        private int width = DEFAULT_WIDTH;
        private int height = DEFAULT_HEIGHT;
        private Axis x = Axis.linear("x", null);
        private Axis y = Axis.linear("y", null);
        private final List<Series> series = new ArrayList<>();
        private final List<Marker> markers = new ArrayList<>();
        private String emptyMessage = "No data";

        private Builder(String id, String title) {
            if (id == null || !id.matches("[A-Za-z][A-Za-z0-9_-]*")) {
                throw new IllegalArgumentException("chart id (" + id + ") must be a letter then letters, digits, - or _");
            }
            this.id = id;
            this.title = Objects.requireNonNull(title, "title");
        }

        public Builder size(int w, int h) {
            if (w < 200 || h < 150) {
                throw new IllegalArgumentException("chart size (" + w + " x " + h + ") must be at least 200 x 150");
            }
            width = w;
            height = h;
            return this;
        }

        public Builder x(Axis axis) {
            x = Objects.requireNonNull(axis, "axis");
            return this;
        }

        public Builder y(Axis axis) {
            y = Objects.requireNonNull(axis, "axis");
            return this;
        }

        public Builder add(Series s) {
            series.add(Objects.requireNonNull(s, "series"));
            return this;
        }

        public Builder mark(Marker m) {
            markers.add(Objects.requireNonNull(m, "marker"));
            return this;
        }

        /** What the plot says when no series has a point to draw. */
        public Builder emptyMessage(String message) {
            emptyMessage = Objects.requireNonNull(message, "message");
            return this;
        }

        public SvgChart build() {
            return new SvgChart(this);
        }
    }

    /** The chart as one {@code <svg>} element. */
    public String toSvg() {
        List<Series> legend = series.stream().filter(s -> s.name() != null && !s.name().isEmpty()).toList();
        int legendRows = legendRows(legend);
        double top = TITLE_HEIGHT + legendRows * LEGEND_ROW + 8;
        double left = MARGIN_LEFT;
        double right = width - MARGIN_RIGHT;
        double bottom = height - MARGIN_BOTTOM;
        if (bottom - top < 40) bottom = top + 40;

        boolean hasPoints = series.stream().anyMatch(s -> countDrawable(s) > 0);
        AxisLayout xl = AxisLayout.of(x, values(true), left, right, false);
        AxisLayout yl = AxisLayout.of(y, values(false), bottom, top, true);

        StringBuilder out = new StringBuilder(4096);
        out.append("<svg class=\"chart\" id=\"").append(id).append("\" viewBox=\"0 0 ").append(width).append(' ')
                .append(height).append("\" width=\"").append(width).append("\" height=\"").append(height)
                .append("\" role=\"img\" aria-label=\"").append(Html.esc(title))
                .append("\" font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif\""
                        + " font-size=\"11\">");
        out.append("<title>").append(Html.esc(title)).append("</title>");
        out.append("<defs><clipPath id=\"").append(id).append("-clip\"><rect x=\"").append(Html.coord(left))
                .append("\" y=\"").append(Html.coord(top)).append("\" width=\"").append(Html.coord(right - left))
                .append("\" height=\"").append(Html.coord(bottom - top)).append("\"/></clipPath></defs>");
        out.append("<text class=\"chart-title\" x=\"").append(Html.coord(left)).append("\" y=\"16\" font-size=\"13\""
                + " font-weight=\"600\">").append(Html.esc(title)).append("</text>");
        legend(out, legend, left, right);

        out.append("<rect class=\"plot\" x=\"").append(Html.coord(left)).append("\" y=\"").append(Html.coord(top))
                .append("\" width=\"").append(Html.coord(right - left)).append("\" height=\"")
                .append(Html.coord(bottom - top)).append("\" fill=\"#fff\" stroke=\"#bbb\"/>");
        grid(out, xl, yl, left, right, top, bottom);

        out.append("<g class=\"series-all\" clip-path=\"url(#").append(id).append("-clip)\">");
        for (Series s : series) drawSeries(out, s, xl, yl);
        out.append("</g>");
        List<double[]> placedLabels = new ArrayList<>();
        for (Marker m : markers) drawMarker(out, m, xl, yl, left, right, top, bottom, placedLabels);
        if (!hasPoints) {
            out.append("<text class=\"empty\" x=\"").append(Html.coord((left + right) / 2)).append("\" y=\"")
                    .append(Html.coord((top + bottom) / 2)).append("\" text-anchor=\"middle\" fill=\"#888\""
                            + " font-size=\"13\">").append(Html.esc(emptyMessage)).append("</text>");
        }
        out.append("</svg>");
        return out.toString();
    }

    private int legendRows(List<Series> legend) {
        if (legend.isEmpty()) return 0;
        int rows = 1;
        double cursor = MARGIN_LEFT;
        for (Series s : legend) {
            double w = legendWidth(s);
            if (cursor + w > width - MARGIN_RIGHT && cursor > MARGIN_LEFT) {
                rows++;
                cursor = MARGIN_LEFT;
            }
            cursor += w;
        }
        return rows;
    }

    private static double legendWidth(Series s) {
        return 22 + s.name().length() * CHAR_WIDTH + 14;
    }

    private void legend(StringBuilder out, List<Series> legend, double left, double right) {
        if (legend.isEmpty()) return;
        out.append("<g class=\"legend\">");
        double cursor = left;
        double baseline = TITLE_HEIGHT + 12;
        for (Series s : legend) {
            double w = legendWidth(s);
            if (cursor + w > right && cursor > left) {
                cursor = left;
                baseline += LEGEND_ROW;
            }
            double mid = baseline - 4;
            if (s.style() == Style.MARKERS) {
                shape(out, s.shape(), cursor + 8, mid, s.color(), 3.5, null);
            } else {
                out.append("<line x1=\"").append(Html.coord(cursor)).append("\" y1=\"").append(Html.coord(mid))
                        .append("\" x2=\"").append(Html.coord(cursor + 16)).append("\" y2=\"").append(Html.coord(mid))
                        .append("\" stroke=\"").append(Html.esc(s.color())).append("\" stroke-width=\"2\"")
                        .append(s.dashed() ? " stroke-dasharray=\"5 3\"" : "").append("/>");
                if (s.style() == Style.LINE_MARKERS) shape(out, s.shape(), cursor + 8, mid, s.color(), 3, null);
            }
            out.append("<text x=\"").append(Html.coord(cursor + 22)).append("\" y=\"").append(Html.coord(baseline))
                    .append("\">").append(Html.esc(s.name())).append("</text>");
            cursor += w;
        }
        out.append("</g>");
    }

    private void grid(StringBuilder out, AxisLayout xl, AxisLayout yl, double left, double right, double top,
                      double bottom) {
        out.append("<g class=\"grid\" stroke=\"#e6e6e6\" stroke-width=\"1\">");
        for (double t : xl.ticks) {
            double px = xl.map(t);
            out.append("<line x1=\"").append(Html.coord(px)).append("\" y1=\"").append(Html.coord(top))
                    .append("\" x2=\"").append(Html.coord(px)).append("\" y2=\"").append(Html.coord(bottom))
                    .append("\"/>");
        }
        for (double t : yl.ticks) {
            double py = yl.map(t);
            out.append("<line x1=\"").append(Html.coord(left)).append("\" y1=\"").append(Html.coord(py))
                    .append("\" x2=\"").append(Html.coord(right)).append("\" y2=\"").append(Html.coord(py))
                    .append("\"/>");
        }
        out.append("</g>");
        out.append("<g class=\"axis axis-x\" fill=\"#444\">");
        for (int i = 0; i < xl.ticks.length; i++) {
            double px = xl.map(xl.ticks[i]);
            out.append("<line x1=\"").append(Html.coord(px)).append("\" y1=\"").append(Html.coord(bottom))
                    .append("\" x2=\"").append(Html.coord(px)).append("\" y2=\"").append(Html.coord(bottom + 4))
                    .append("\" stroke=\"#888\"/>");
            out.append("<text x=\"").append(Html.coord(px)).append("\" y=\"").append(Html.coord(bottom + 16))
                    .append("\" text-anchor=\"middle\">").append(Html.esc(xl.labels[i])).append("</text>");
        }
        out.append("<text class=\"axis-title\" x=\"").append(Html.coord((left + right) / 2)).append("\" y=\"")
                .append(Html.coord(bottom + 36)).append("\" text-anchor=\"middle\" font-size=\"12\">")
                .append(Html.esc(x.title())).append("</text>");
        out.append("</g>");
        out.append("<g class=\"axis axis-y\" fill=\"#444\">");
        for (int i = 0; i < yl.ticks.length; i++) {
            double py = yl.map(yl.ticks[i]);
            out.append("<line x1=\"").append(Html.coord(left - 4)).append("\" y1=\"").append(Html.coord(py))
                    .append("\" x2=\"").append(Html.coord(left)).append("\" y2=\"").append(Html.coord(py))
                    .append("\" stroke=\"#888\"/>");
            out.append("<text x=\"").append(Html.coord(left - 7)).append("\" y=\"").append(Html.coord(py + 4))
                    .append("\" text-anchor=\"end\">").append(Html.esc(yl.labels[i])).append("</text>");
        }
        double cy = (top + bottom) / 2;
        out.append("<text class=\"axis-title\" x=\"14\" y=\"").append(Html.coord(cy))
                .append("\" text-anchor=\"middle\" font-size=\"12\" transform=\"rotate(-90 14 ")
                .append(Html.coord(cy)).append(")\">").append(Html.esc(y.title())).append("</text>");
        out.append("</g>");
    }

    private void drawSeries(StringBuilder out, Series s, AxisLayout xl, AxisLayout yl) {
        out.append("<g class=\"series").append(s.cssClass() == null ? "" : " " + Html.esc(s.cssClass()))
                .append("\">");
        double[] xs = s.xs();
        double[] ys = s.ys();
        if (s.style() != Style.MARKERS) {
            StringBuilder d = new StringBuilder();
            boolean pen = false;
            double lastPy = 0;
            for (int i = 0; i < xs.length; i++) {
                if (!xl.accepts(xs[i]) || !yl.accepts(ys[i])) {
                    pen = false;
                    continue;
                }
                double px = xl.map(xs[i]);
                double py = yl.map(ys[i]);
                if (!pen) {
                    d.append('M').append(Html.coord(px)).append(' ').append(Html.coord(py));
                    pen = true;
                } else if (s.style() == Style.STEP) {
                    d.append('H').append(Html.coord(px));
                    if (Math.abs(py - lastPy) >= 0.005) d.append('V').append(Html.coord(py));
                } else {
                    d.append('L').append(Html.coord(px)).append(' ').append(Html.coord(py));
                }
                lastPy = py;
            }
            if (d.length() > 0) {
                out.append("<path d=\"").append(d).append("\" fill=\"none\" stroke=\"").append(Html.esc(s.color()))
                        .append("\" stroke-width=\"1.8\" stroke-linejoin=\"round\"")
                        .append(s.dashed() ? " stroke-dasharray=\"5 3\"" : "").append("/>");
            }
        }
        if (s.style() == Style.MARKERS || s.style() == Style.LINE_MARKERS) {
            int drawable = countDrawable(s);
            boolean titles = s.pointTitles() != null && drawable <= MAX_TITLED_POINTS;
            boolean data = drawable <= MAX_DATA_POINTS;
            double r = drawable > 500 ? 2.2 : 3.2;
            for (int i = 0; i < xs.length; i++) {
                if (!xl.accepts(xs[i]) || !yl.accepts(ys[i])) continue;
                String extra = data ? " data-x=\"" + Html.data(xs[i]) + "\" data-y=\"" + Html.data(ys[i]) + "\"" : "";
                String pointTitle = titles ? s.pointTitles()[i] : null;
                shapeWithExtra(out, s.shape(), xl.map(xs[i]), yl.map(ys[i]), s.color(), r, extra, pointTitle);
            }
        }
        out.append("</g>");
    }

    private static void shape(StringBuilder out, Shape shape, double cx, double cy, String color, double r,
                              String pointTitle) {
        shapeWithExtra(out, shape, cx, cy, color, r, "", pointTitle);
    }

    private static void shapeWithExtra(StringBuilder out, Shape shape, double cx, double cy, String color, double r,
                                       String extra, String pointTitle) {
        String c = Html.esc(color);
        String open;
        String close;
        switch (shape) {
            case CIRCLE -> {
                open = "<circle cx=\"" + Html.coord(cx) + "\" cy=\"" + Html.coord(cy) + "\" r=\"" + Html.coord(r)
                        + "\" fill=\"" + c + "\" fill-opacity=\"0.75\"" + extra;
                close = "</circle>";
            }
            case RING -> {
                open = "<circle cx=\"" + Html.coord(cx) + "\" cy=\"" + Html.coord(cy) + "\" r=\""
                        + Html.coord(r * 2.2) + "\" fill=\"none\" stroke=\"" + c + "\" stroke-width=\"2\"" + extra;
                close = "</circle>";
            }
            case CROSS -> {
                double a = r * 1.1;
                open = "<path d=\"M" + Html.coord(cx - a) + ' ' + Html.coord(cy - a) + 'L' + Html.coord(cx + a) + ' '
                        + Html.coord(cy + a) + 'M' + Html.coord(cx - a) + ' ' + Html.coord(cy + a) + 'L'
                        + Html.coord(cx + a) + ' ' + Html.coord(cy - a) + "\" stroke=\"" + c
                        + "\" stroke-width=\"1.6\" fill=\"none\"" + extra;
                close = "</path>";
            }
            default -> throw new AssertionError(shape);
        }
        out.append(open);
        if (pointTitle == null) {
            out.append("/>");
        } else {
            out.append("><title>").append(Html.esc(pointTitle)).append("</title>").append(close);
        }
    }

    private void drawMarker(StringBuilder out, Marker m, AxisLayout xl, AxisLayout yl, double left, double right,
                            double top, double bottom, List<double[]> placedLabels) {
        boolean vertical = m.orientation() == Orientation.VERTICAL;
        AxisLayout axis = vertical ? xl : yl;
        if (!axis.accepts(m.value())) return;
        double p = axis.map(m.value());
        if (p < Math.min(axis.from, axis.to) - 0.5 || p > Math.max(axis.from, axis.to) + 0.5) return;
        out.append("<g class=\"marker").append(m.cssClass() == null ? "" : " " + Html.esc(m.cssClass()))
                .append("\" data-value=\"").append(Html.data(m.value())).append("\">");
        String c = Html.esc(m.color());
        if (vertical) {
            out.append("<line x1=\"").append(Html.coord(p)).append("\" y1=\"").append(Html.coord(top))
                    .append("\" x2=\"").append(Html.coord(p)).append("\" y2=\"").append(Html.coord(bottom))
                    .append("\" stroke=\"").append(c).append("\" stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>");
            if (m.label() != null) {
                boolean flip = p > (left + right) / 2;
                double labelY = top + 12;
                while (collides(placedLabels, p, labelY) && labelY < bottom - 12) labelY += 13;
                placedLabels.add(new double[] {p, labelY});
                out.append("<text x=\"").append(Html.coord(flip ? p - 4 : p + 4)).append("\" y=\"")
                        .append(Html.coord(labelY)).append("\" text-anchor=\"").append(flip ? "end" : "start")
                        .append("\" fill=\"").append(c).append("\">").append(Html.esc(m.label())).append("</text>");
            }
        } else {
            out.append("<line x1=\"").append(Html.coord(left)).append("\" y1=\"").append(Html.coord(p))
                    .append("\" x2=\"").append(Html.coord(right)).append("\" y2=\"").append(Html.coord(p))
                    .append("\" stroke=\"").append(c).append("\" stroke-width=\"1.2\" stroke-dasharray=\"6 3\"/>");
            if (m.label() != null) {
                double labelY = p - 4;
                if (collides(placedLabels, right, labelY) || labelY < top + 10) labelY = p + 13;
                for (int k = 1; collides(placedLabels, right, labelY) && k < 6; k++) labelY = p - 4 - 13 * k;
                placedLabels.add(new double[] {right, labelY});
                out.append("<text x=\"").append(Html.coord(right - 4)).append("\" y=\"").append(Html.coord(labelY))
                        .append("\" text-anchor=\"end\" fill=\"").append(c).append("\">").append(Html.esc(m.label()))
                        .append("</text>");
            }
        }
        out.append("</g>");
    }

    /** Whether a label at (x, y) would overlap one already placed (labels are about 90 x 13 units). */
    private static boolean collides(List<double[]> placed, double x, double y) {
        for (double[] p : placed) {
            if (Math.abs(p[0] - x) < 90 && Math.abs(p[1] - y) < 13) return true;
        }
        return false;
    }

    private int countDrawable(Series s) {
        int n = 0;
        for (int i = 0; i < s.xs().length; i++) {
            if (accepts(x, s.xs()[i]) && accepts(y, s.ys()[i])) n++;
        }
        return n;
    }

    static boolean accepts(Axis axis, double v) {
        return Double.isFinite(v) && (axis.scale() == Scale.LINEAR || v > 0);
    }

    /** The finite values along one axis: series points (both coordinates drawable) and that axis' markers. */
    private double[] values(boolean alongX) {
        List<Double> out = new ArrayList<>();
        for (Series s : series) {
            for (int i = 0; i < s.xs().length; i++) {
                if (accepts(x, s.xs()[i]) && accepts(y, s.ys()[i])) out.add(alongX ? s.xs()[i] : s.ys()[i]);
            }
        }
        Orientation o = alongX ? Orientation.VERTICAL : Orientation.HORIZONTAL;
        for (Marker m : markers) {
            if (m.orientation() == o && accepts(alongX ? x : y, m.value())) out.add(m.value());
        }
        return out.stream().mapToDouble(Double::doubleValue).toArray();
    }
}

package io.llmperf4j.report.html;

import io.llmperf4j.report.html.SvgChart.Axis;
import io.llmperf4j.report.html.SvgChart.Scale;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The axis maths of {@link SvgChart}: an axis fitted to its values (domain, "nice" 1-2-5 ticks with labels, log
 * decades) and the mapping from values to pixels. No drawing here.
 */
final class AxisLayout {
    final Axis axis;
    final double lo;
    final double hi;
    final double[] ticks;
    final String[] labels;
    final double from;
    final double to;

    private AxisLayout(Axis axis, double lo, double hi, double[] ticks, String[] labels, double from, double to) {
        this.axis = axis;
        this.lo = lo;
        this.hi = hi;
        this.ticks = ticks;
        this.labels = labels;
        this.from = from;
        this.to = to;
    }

    boolean accepts(double v) {
        return SvgChart.accepts(axis, v);
    }

    double map(double v) {
        double t = axis.scale() == Scale.LOG
                ? (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))
                : (v - lo) / (hi - lo);
        return from + t * (to - from);
    }

    static AxisLayout of(Axis axis, double[] values, double from, double to, boolean vertical) {
        return axis.scale() == Scale.LOG ? log(axis, values, from, to) : linear(axis, values, from, to, vertical);
    }

    private static AxisLayout linear(Axis axis, double[] values, double from, double to, boolean vertical) {
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (double v : values) {
            lo = Math.min(lo, v);
            hi = Math.max(hi, v);
        }
        if (axis.ticks() != null) {
            for (double t : axis.ticks()) {
                if (Double.isFinite(t)) {
                    lo = Math.min(lo, t);
                    hi = Math.max(hi, t);
                }
            }
        }
        if (lo > hi) { // nothing to show
            lo = 0;
            hi = 1;
        }
        if (axis.includeZero()) {
            lo = Math.min(lo, 0);
            hi = Math.max(hi, 0);
        }
        boolean fixedLo = Double.isFinite(axis.min());
        boolean fixedHi = Double.isFinite(axis.max());
        if (fixedLo) lo = axis.min();
        if (fixedHi) hi = axis.max();
        if (hi <= lo) {
            if (lo == 0) {
                hi = 1;
            } else {
                double pad = Math.abs(lo) * 0.1;
                if (!fixedLo) lo -= pad;
                if (!fixedHi) hi += pad;
                if (hi <= lo) hi = lo + 2 * pad;
            }
        }
        double[] ticks;
        if (axis.ticks() != null) {
            double pad = (hi - lo) * 0.04;
            if (!fixedLo && !(axis.includeZero() && lo == 0)) lo -= pad;
            if (!fixedHi) hi += pad;
            ticks = Arrays.stream(axis.ticks()).filter(Double::isFinite).sorted().distinct().toArray();
        } else {
            int target = vertical ? 5 : 7;
            double step = niceStep((hi - lo) / (target - 1));
            if (!fixedLo) lo = Math.floor(lo / step + 1e-9) * step;
            if (!fixedHi) hi = Math.ceil(hi / step - 1e-9) * step;
            List<Double> t = new ArrayList<>();
            double first = Math.ceil(lo / step - 1e-9) * step;
            for (int k = 0; ; k++) {
                double v = first + k * step;
                if (v > hi + step * 1e-9) break;
                t.add(Math.abs(v) < step * 1e-9 ? 0.0 : v);
                if (k > 50) break;
            }
            ticks = t.stream().mapToDouble(Double::doubleValue).toArray();
        }
        return new AxisLayout(axis, lo, hi, ticks, linearLabels(ticks), from, to);
    }

    private static AxisLayout log(Axis axis, double[] values, double from, double to) {
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (double v : values) {
            if (v > 0) {
                lo = Math.min(lo, v);
                hi = Math.max(hi, v);
            }
        }
        if (axis.ticks() != null) {
            for (double t : axis.ticks()) {
                if (t > 0 && Double.isFinite(t)) {
                    lo = Math.min(lo, t);
                    hi = Math.max(hi, t);
                }
            }
        }
        if (lo > hi) {
            lo = 1;
            hi = 10;
        }
        if (Double.isFinite(axis.min()) && axis.min() > 0) lo = axis.min();
        if (Double.isFinite(axis.max()) && axis.max() > lo) hi = axis.max();
        double[] ticks;
        if (axis.ticks() != null) {
            ticks = Arrays.stream(axis.ticks()).filter(t -> t > 0 && Double.isFinite(t)).sorted().distinct()
                    .toArray();
            double factor = hi > lo ? Math.pow(hi / lo, 0.05) : 2;
            if (!Double.isFinite(axis.min())) lo /= factor;
            if (!Double.isFinite(axis.max())) hi *= factor;
        } else {
            if (!(hi > lo)) {
                lo /= 2;
                hi *= 2;
            }
            double niceLo = Double.isFinite(axis.min()) ? lo : oneTwoFiveAtOrBelow(lo);
            double niceHi = Double.isFinite(axis.max()) ? hi : oneTwoFiveAtOrAbove(hi);
            List<Double> t = oneTwoFiveBetween(niceLo, niceHi, false);
            if (t.size() > 9) {
                if (!Double.isFinite(axis.min())) niceLo = Math.pow(10, Math.floor(Math.log10(lo) + 1e-9));
                if (!Double.isFinite(axis.max())) niceHi = Math.pow(10, Math.ceil(Math.log10(hi) - 1e-9));
                t = oneTwoFiveBetween(niceLo, niceHi, true);
            }
            lo = niceLo;
            hi = niceHi;
            ticks = t.stream().mapToDouble(Double::doubleValue).toArray();
        }
        String[] labels = new String[ticks.length];
        for (int i = 0; i < ticks.length; i++) labels[i] = compact(ticks[i]);
        return new AxisLayout(axis, lo, hi, ticks, labels, from, to);
    }

    /** Heckbert's nice step: the 1, 2 or 5 times a power of ten nearest to {@code raw}. */
    static double niceStep(double raw) {
        if (!(raw > 0) || !Double.isFinite(raw)) return 1;
        double exp = Math.floor(Math.log10(raw));
        double base = Math.pow(10, exp);
        double f = raw / base;
        double nice = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
        return nice * base;
    }

    private static double oneTwoFiveAtOrBelow(double v) {
        double base = Math.pow(10, Math.floor(Math.log10(v) + 1e-12));
        double f = v / base;
        return (f >= 5 - 1e-9 ? 5 : f >= 2 - 1e-9 ? 2 : 1) * base;
    }

    private static double oneTwoFiveAtOrAbove(double v) {
        double base = Math.pow(10, Math.floor(Math.log10(v) + 1e-12));
        double f = v / base;
        return (f <= 1 + 1e-9 ? 1 : f <= 2 + 1e-9 ? 2 : f <= 5 + 1e-9 ? 5 : 10) * base;
    }

    private static List<Double> oneTwoFiveBetween(double lo, double hi, boolean decadesOnly) {
        List<Double> out = new ArrayList<>();
        int e0 = (int) Math.floor(Math.log10(lo)) - 1;
        int e1 = (int) Math.ceil(Math.log10(hi)) + 1;
        for (int e = e0; e <= e1; e++) {
            for (double m : decadesOnly ? new double[] {1} : new double[] {1, 2, 5}) {
                double v = m * Math.pow(10, e);
                if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.add(v);
            }
        }
        return out;
    }

    private static String[] linearLabels(double[] ticks) {
        String[] labels = new String[ticks.length];
        if (ticks.length == 0) return labels;
        double maxAbs = 0;
        double minGap = Double.POSITIVE_INFINITY;
        for (int i = 0; i < ticks.length; i++) {
            maxAbs = Math.max(maxAbs, Math.abs(ticks[i]));
            if (i > 0) minGap = Math.min(minGap, ticks[i] - ticks[i - 1]);
        }
        double divisor = 1;
        String suffix = "";
        if (maxAbs >= 1e6 && (minGap >= 1e5 || !Double.isFinite(minGap))) {
            divisor = 1e6;
            suffix = "M";
        } else if (maxAbs >= 1e4 && (minGap >= 100 || !Double.isFinite(minGap))) {
            divisor = 1e3;
            suffix = "k";
        }
        int decimals = 0;
        for (double t : ticks) decimals = Math.max(decimals, decimalsNeeded(t / divisor));
        for (int i = 0; i < ticks.length; i++) {
            labels[i] = ticks[i] == 0 ? "0"
                    : String.format(Locale.ROOT, "%." + decimals + "f", ticks[i] / divisor) + suffix;
        }
        return labels;
    }

    private static int decimalsNeeded(double v) {
        for (int d = 0; d < 6; d++) {
            double scaled = v * Math.pow(10, d);
            if (Math.abs(scaled - Math.rint(scaled)) < 1e-6 * Math.max(1, Math.abs(scaled))) return d;
        }
        return 6;
    }

    /** A log-axis label: "0.5", "20", "5k", "2M". */
    static String compact(double v) {
        if (v >= 1e6 && decimalsNeeded(v / 1e6) == 0) return String.format(Locale.ROOT, "%.0fM", v / 1e6);
        if (v >= 1e3 && decimalsNeeded(v / 1e3) == 0) return String.format(Locale.ROOT, "%.0fk", v / 1e3);
        return String.format(Locale.ROOT, "%." + decimalsNeeded(v) + "f", v);
    }
}

package io.llmperf4j.servermetrics.exposition;

/**
 * Writes families as Prometheus text format 0.0.4, the way Python's prometheus_client does: {@code # HELP} and
 * {@code # TYPE} before each family's samples, label values and HELP text escaped, values in Go's float syntax
 * ({@code +Inf}, {@code -Inf}, {@code NaN}). What it writes, {@link ExpositionParser} reads back unchanged.
 */
public final class ExpositionWriter {

    private ExpositionWriter() {
    }

    /** The whole exposition as 0.0.4 text (whatever format it was parsed from). */
    public static String write(Exposition exposition) {
        StringBuilder out = new StringBuilder(4096);
        for (MetricFamily family : exposition.families()) append(family, out);
        return out.toString();
    }

    /** Appends one family: its HELP (when it has one), its TYPE, then its samples. */
    public static void append(MetricFamily family, StringBuilder out) {
        if (family.help() != null) {
            out.append("# HELP ").append(family.name()).append(' ').append(escapeHelp(family.help())).append('\n');
        }
        String word = family.type() == MetricType.GAUGE_HISTOGRAM ? "histogram"
                : family.type() == MetricType.INFO || family.type() == MetricType.STATESET ? "gauge"
                : family.type().word;
        out.append("# TYPE ").append(family.name()).append(' ').append(word).append('\n');
        for (Sample s : family.samples()) appendSample(s.name(), s.labels(), s.value(), out);
    }

    /** Appends one sample line {@code name{labels} value}. */
    public static void appendSample(String name, Labels labels, double value, StringBuilder out) {
        out.append(name);
        if (!labels.isEmpty()) out.append('{').append(labels.render()).append('}');
        out.append(' ').append(formatValue(value)).append('\n');
    }

    /**
     * A value in Go's float syntax as prometheus_client writes it: {@code 3.0}, {@code 0.42}, {@code 1.0e-05}
     * style exponents, {@code +Inf}, {@code -Inf}, {@code NaN}.
     */
    public static String formatValue(double value) {
        if (Double.isNaN(value)) return "NaN";
        if (value == Double.POSITIVE_INFINITY) return "+Inf";
        if (value == Double.NEGATIVE_INFINITY) return "-Inf";
        if (value == Math.rint(value) && Math.abs(value) < 1e15) return (long) value + ".0";
        return Double.toString(value).replace('E', 'e');
    }

    static String escapeHelp(String help) {
        return help.replace("\\", "\\\\").replace("\n", "\\n");
    }
}

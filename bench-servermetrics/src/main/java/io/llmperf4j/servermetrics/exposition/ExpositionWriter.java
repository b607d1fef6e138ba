package io.llmperf4j.servermetrics.exposition;

import java.util.List;

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

    /**
     * Appends one family in 0.0.4 shape: its HELP (when it has one), its TYPE, then its samples. A family parsed from
     * OpenMetrics is reshaped the way prometheus_client writes the same metric in 0.0.4: a counter's family takes its
     * samples' {@code _total} name, {@code _created} samples become a separate gauge family, and the types 0.0.4 lacks
     * (gaugehistogram, info, stateset) are written as untyped samples without metadata.
     */
    public static void append(MetricFamily family, StringBuilder out) {
        switch (family.type()) {
            case GAUGE_HISTOGRAM, INFO, STATESET -> {
                for (Sample s : family.samples()) appendSample(s.name(), s.labels(), s.value(), out);
            }
            case COUNTER, HISTOGRAM, SUMMARY -> {
                String base = family.type() == MetricType.COUNTER && family.name().endsWith("_total")
                        ? family.name().substring(0, family.name().length() - "_total".length()) : family.name();
                String created = base + "_created";
                List<Sample> values = family.samples().stream().filter(s -> !s.name().equals(created)).toList();
                List<Sample> creations = family.samples().stream().filter(s -> s.name().equals(created)).toList();
                String name = family.type() == MetricType.COUNTER && !values.isEmpty() ? values.get(0).name()
                        : family.name();
                header(name, family.help(), family.type().word, out);
                for (Sample s : values) appendSample(s.name(), s.labels(), s.value(), out);
                if (!creations.isEmpty()) {
                    header(created, family.help(), MetricType.GAUGE.word, out);
                    for (Sample s : creations) appendSample(s.name(), s.labels(), s.value(), out);
                }
            }
            default -> {
                header(family.name(), family.help(), family.type().word, out);
                for (Sample s : family.samples()) appendSample(s.name(), s.labels(), s.value(), out);
            }
        }
    }

    private static void header(String name, String help, String typeWord, StringBuilder out) {
        if (help != null) out.append("# HELP ").append(name).append(' ').append(escapeHelp(help)).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(typeWord).append('\n');
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

package io.llmperf4j.servermetrics.csv;

import io.llmperf4j.servermetrics.timeline.Scrape;
import io.llmperf4j.servermetrics.timeline.Series;
import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * Writes a timeline as tidy CSV (RFC 4180, header row, UTF-8): one row per sample per successful scrape, every
 * family the server served, known or not, so pandas or R can pivot it at will ({@code pivot_table(index="time_s",
 * columns="name")}). Creation-time samples are already gone (see the timeline). A failed scrape is one row with
 * the name {@value #GAP_NAME}, no value, and its reason in the labels column, so gaps stay visible.
 *
 * <p>{@code time_s}: seconds from the run's start, 6 decimals (a successful scrape's midpoint; a gap's row, the
 * instant the failed scrape was sent). {@code labels}: Prometheus
 * syntax without braces, sorted by label name ({@code engine="0",model_name="m"}), empty for none. {@code value}:
 * plain decimal, never an exponent; {@code NaN}, {@code +Inf}, {@code -Inf} as Prometheus writes them.
 */
public final class ServerMetricsCsvWriter {

    /** The columns, in order. */
    public static final List<String> HEADER = List.of("time_s", "name", "labels", "value");

    /** The name of a gap's row. */
    public static final String GAP_NAME = "scrape_failed";

    /** The file's name beside the run's other files: {@code <base>_server_metrics.csv}. */
    public static final String SUFFIX = "_server_metrics.csv";

    private static final int MICROS_DIGITS = 6;
    private static final CSVFormat FORMAT = CSVFormat.RFC4180.builder().setHeader(HEADER.toArray(String[]::new)).get();

    private ServerMetricsCsvWriter() {
    }

    /** {@code <base>_server_metrics.csv} in {@code dir}. */
    public static Path fileFor(Path dir, String base) {
        return dir.resolve(base + SUFFIX);
    }

    /** Writes the timeline to {@code file}, replacing it. */
    public static void write(ServerMetricsTimeline timeline, Path file) throws IOException {
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            write(timeline, writer);
        }
    }

    /** Writes the header and the rows to {@code out}, which stays open. */
    public static void write(ServerMetricsTimeline timeline, Appendable out) throws IOException {
        CSVPrinter printer = new CSVPrinter(out, FORMAT);
        List<Series> series = timeline.series();
        String[] renderedLabels = new String[series.size()];
        for (Series s : series) renderedLabels[s.id()] = s.labels().render();
        for (Scrape scrape : timeline.scrapes()) {
            String time = seconds(scrape.offsetNanos());
            if (!scrape.ok()) {
                printer.printRecord(time, GAP_NAME, "reason=\"" + scrape.failure().replace("\\", "\\\\")
                        .replace("\"", "\\\"").replace("\n", "\\n") + "\"", "");
                continue;
            }
            for (int i = 0; i < scrape.size(); i++) {
                int id = scrape.seriesId(i);
                printer.printRecord(time, series.get(id).name(), renderedLabels[id], value(scrape.value(i)));
            }
        }
        printer.flush();
    }

    static String seconds(long nanos) {
        return BigDecimal.valueOf(nanos, 9).setScale(MICROS_DIGITS, RoundingMode.HALF_UP).toPlainString();
    }

    static String value(double v) {
        if (Double.isNaN(v)) return "NaN";
        if (v == Double.POSITIVE_INFINITY) return "+Inf";
        if (v == Double.NEGATIVE_INFINITY) return "-Inf";
        if (v == 0) return "0";
        return BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }
}

package io.llmperf4j.report.output;

import io.llmperf4j.report.summary.SummaryJson;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * How the load run's own files look: JSON pretty-printed UTF-8 with snake-case keys and a final newline; CSV RFC 4180
 * with a header row; an undefined number is {@code null} in JSON and an empty field in CSV, never an exponent.
 */
final class OutputFormat {
    private OutputFormat() {
    }

    static void writeJson(Object doc, Path file) throws IOException {
        Files.writeString(file, SummaryJson.prettyJson(doc, file.getFileName().toString()), StandardCharsets.UTF_8);
    }

    static CSVPrinter csv(Path file, List<String> header) throws IOException {
        Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        return new CSVPrinter(writer, CSVFormat.RFC4180.builder().setHeader(header.toArray(String[]::new)).get());
    }

    /** A CSV cell: empty when undefined, plain decimal otherwise (never an exponent). */
    static String cell(Double v) {
        return v == null ? "" : fixed(v);
    }

    /** A load level as the user typed it: 2 for 2.0, 0.5 for 0.5 (as the engine names levels). */
    static String level(double level) {
        if (level == Math.rint(level) && Math.abs(level) < 1e15) return Long.toString((long) level);
        return Double.toString(level);
    }

    static String fixed(double v) {
        return new BigDecimal(Double.toString(v)).stripTrailingZeros().toPlainString();
    }
}

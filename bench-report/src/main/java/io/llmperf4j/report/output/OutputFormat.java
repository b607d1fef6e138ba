package io.llmperf4j.report.output;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.json.JsonMapper;
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

    private static final JsonMapper READER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    /** Reads one of our JSON files back; the message names the file and what is wrong with it. */
    static <T> T readJson(Path file, Class<T> type) throws IOException {
        try {
            return READER.readValue(file.toFile(), type);
        } catch (JsonProcessingException e) {
            throw new IOException(file + " is not a readable " + type.getSimpleName().toLowerCase(java.util.Locale.ROOT)
                    + ": " + e.getOriginalMessage(), e);
        }
    }

    /** Reads an RFC 4180 CSV with a header row; every row as a map by column name. */
    static List<java.util.Map<String, String>> readCsv(Path file, List<String> requiredColumns) throws IOException {
        try (java.io.Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8);
             org.apache.commons.csv.CSVParser parser = CSVFormat.RFC4180.builder().setHeader()
                     .setSkipHeaderRecord(true).get().parse(reader)) {
            for (String column : requiredColumns) {
                if (!parser.getHeaderNames().contains(column)) {
                    throw new IOException(file + " has no column '" + column + "' (its header: "
                            + parser.getHeaderNames() + ")");
                }
            }
            List<java.util.Map<String, String>> rows = new java.util.ArrayList<>();
            for (org.apache.commons.csv.CSVRecord r : parser) {
                if (!r.isConsistent()) {
                    throw new IOException(file + " row " + r.getRecordNumber() + " has " + r.size() + " fields, not "
                            + parser.getHeaderNames().size());
                }
                rows.add(r.toMap());
            }
            return rows;
        } catch (java.io.UncheckedIOException e) {
            throw new IOException(file + ": " + e.getCause().getMessage(), e);
        }
    }

    /** A number cell read back: empty is undefined (null). */
    static Double number(String cell) throws IOException {
        if (cell == null || cell.isEmpty()) return null;
        try {
            return Double.valueOf(cell);
        } catch (NumberFormatException e) {
            throw new IOException("'" + cell + "' is not a number");
        }
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

package io.llmperf4j.report.output;

import org.apache.commons.csv.CSVPrinter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** {@code <base>_iterations.csv}: every JMH-style iteration of every fork and level, warmup ones flagged. */
public final class IterationsFile {
    /** The columns, in order. */
    public static final List<String> COLUMNS = List.of("level", "load_unit", "fork", "iteration_type",
            "iteration", "start_offset_s", "duration_s", "output_tokens", "output_tok_s", "requests_completed",
            "requests_failed", "requests_s", "ttft_mean_ms", "tpot_mean_ms");

    /** One iteration; null numbers are undefined. */
    public record Row(String level, String loadUnit, int fork, String iterationType, int iteration,
                      double startOffsetS, double durationS, double outputTokens, Double outputTokS,
                      int requestsCompleted, int requestsFailed, Double requestsS, Double ttftMeanMs,
                      Double tpotMeanMs) {
    }

    /** The file's name ends with this: {@code <base>_iterations.csv}. */
    public static final String SUFFIX = "_iterations.csv";

    private IterationsFile() {
    }

    /** Reads {@code <base>_iterations.csv} back; the message of the exception names the file and the row. */
    public static List<Row> read(Path file) throws IOException {
        List<Row> rows = new java.util.ArrayList<>();
        int n = 1;
        for (java.util.Map<String, String> r : OutputFormat.readCsv(file, COLUMNS)) {
            n++;
            try {
                rows.add(new Row(r.get("level"), r.get("load_unit"), Integer.parseInt(r.get("fork")),
                        r.get("iteration_type"), Integer.parseInt(r.get("iteration")),
                        Double.parseDouble(r.get("start_offset_s")), Double.parseDouble(r.get("duration_s")),
                        Double.parseDouble(r.get("output_tokens")), OutputFormat.number(r.get("output_tok_s")),
                        Integer.parseInt(r.get("requests_completed")), Integer.parseInt(r.get("requests_failed")),
                        OutputFormat.number(r.get("requests_s")), OutputFormat.number(r.get("ttft_mean_ms")),
                        OutputFormat.number(r.get("tpot_mean_ms"))));
            } catch (IOException | NumberFormatException e) {
                throw new IOException(file + " line " + n + ": " + e.getMessage(), e);
            }
        }
        return rows;
    }

    /** Writes {@code rows} into {@code dir}; returns the file. */
    public static Path write(Path dir, String base, List<Row> rows) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(base + SUFFIX);
        try (CSVPrinter printer = OutputFormat.csv(file, COLUMNS)) {
            for (Row r : rows) {
                printer.printRecord(r.level(), r.loadUnit(), r.fork(), r.iterationType(), r.iteration(),
                        OutputFormat.fixed(r.startOffsetS()), OutputFormat.fixed(r.durationS()),
                        OutputFormat.fixed(r.outputTokens()), OutputFormat.cell(r.outputTokS()),
                        r.requestsCompleted(), r.requestsFailed(), OutputFormat.cell(r.requestsS()),
                        OutputFormat.cell(r.ttftMeanMs()), OutputFormat.cell(r.tpotMeanMs()));
            }
        }
        return file;
    }
}

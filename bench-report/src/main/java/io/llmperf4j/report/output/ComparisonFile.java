package io.llmperf4j.report.output;

import org.apache.commons.csv.CSVPrinter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** {@code comparison.csv}: several models under the same workload and load, one row per model and level. */
public final class ComparisonFile {
    public static final String FILE_NAME = "comparison.csv";

    /** The columns, in order. */
    public static final List<String> COLUMNS = List.of("model", "level", "load_unit", "successes", "total",
            "output_tok_s", "requests_s", "ttft_p50_ms", "ttft_p90_ms", "e2e_p50_ms", "e2e_p90_ms", "aborted",
            "results_dir");

    /** A model at one level; null numbers are undefined. */
    public record Row(String model, String level, String loadUnit, int successes, int total, Double outputTokS,
                      Double requestsS, Double ttftP50Ms, Double ttftP90Ms, Double e2eP50Ms, Double e2eP90Ms,
                      boolean aborted, String resultsDir) {
    }

    private ComparisonFile() {
    }

    /** Reads {@code comparison.csv} back; the message of the exception names the file and the row. */
    public static List<Row> read(Path file) throws IOException {
        List<Row> rows = new java.util.ArrayList<>();
        int n = 1;
        for (java.util.Map<String, String> r : OutputFormat.readCsv(file, COLUMNS)) {
            n++;
            try {
                rows.add(new Row(r.get("model"), r.get("level"), r.get("load_unit"),
                        Integer.parseInt(r.get("successes")), Integer.parseInt(r.get("total")),
                        OutputFormat.number(r.get("output_tok_s")), OutputFormat.number(r.get("requests_s")),
                        OutputFormat.number(r.get("ttft_p50_ms")), OutputFormat.number(r.get("ttft_p90_ms")),
                        OutputFormat.number(r.get("e2e_p50_ms")), OutputFormat.number(r.get("e2e_p90_ms")),
                        Boolean.parseBoolean(r.get("aborted")), r.get("results_dir")));
            } catch (IOException | NumberFormatException e) {
                throw new IOException(file + " line " + n + ": " + e.getMessage(), e);
            }
        }
        return rows;
    }

    /** Writes {@code rows} into {@code dir}; returns the file. */
    public static Path write(Path dir, List<Row> rows) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(FILE_NAME);
        try (CSVPrinter printer = OutputFormat.csv(file, COLUMNS)) {
            for (Row r : rows) {
                printer.printRecord(r.model(), r.level(), r.loadUnit(), r.successes(), r.total(),
                        OutputFormat.cell(r.outputTokS()), OutputFormat.cell(r.requestsS()),
                        OutputFormat.cell(r.ttftP50Ms()), OutputFormat.cell(r.ttftP90Ms()),
                        OutputFormat.cell(r.e2eP50Ms()), OutputFormat.cell(r.e2eP90Ms()), r.aborted(),
                        r.resultsDir());
            }
        }
        return file;
    }
}

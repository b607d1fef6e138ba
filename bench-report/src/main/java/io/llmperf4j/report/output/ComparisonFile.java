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

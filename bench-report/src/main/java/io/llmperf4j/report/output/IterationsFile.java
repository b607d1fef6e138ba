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

    private IterationsFile() {
    }

    /** Writes {@code rows} into {@code dir}; returns the file. */
    public static Path write(Path dir, String base, List<Row> rows) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(base + "_iterations.csv");
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

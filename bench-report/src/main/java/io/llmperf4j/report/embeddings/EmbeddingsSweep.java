package io.llmperf4j.report.embeddings;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

import static io.llmperf4j.report.embeddings.EmbeddingsSummary.fixed;

/**
 * An embeddings sweep's levels side by side: a console table and {@code <base>_embeddings_sweep.csv} (a row per
 * level: throughput, latency percentiles, errors, and the level's folder).
 */
public final class EmbeddingsSweep {

    /** The CSV's columns. */
    public static final List<String> COLUMNS = List.of("level", "load_unit", "requests", "completed", "errors",
            "inputs_per_s", "input_tokens_per_s", "latency_s_p50", "latency_s_p90", "latency_s_p99",
            "latency_s_mean", "aborted", "folder");

    private static final String ROW = "%-14s %10s %10s %14s %10s %10s %10s %8s%n";

    /**
     * One level of the sweep.
     *
     * @param level   the concurrency or the rate
     * @param text    the level as shown, e.g. "8" or "0.5"
     * @param summary its figures
     * @param aborted a stop ended it early
     * @param folder  its files' folder, relative to the sweep's, or null when nothing is written
     */
    public record Level(double level, String text, EmbeddingsSummary summary, boolean aborted, String folder) {
        public Level {
            Objects.requireNonNull(text, "text");
            Objects.requireNonNull(summary, "summary");
        }
    }

    private EmbeddingsSweep() {
    }

    /** The console table; {@code levelHeader} names the first column, e.g. "concurrency" or "rate (req/s)". */
    public static String table(String levelHeader, List<Level> levels) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, ROW, levelHeader, "ok/total", "inputs/s", "input tok/s", "p50 s",
                "p90 s", "p99 s", "errors"));
        for (Level l : levels) {
            EmbeddingsSummary s = l.summary();
            b.append(String.format(Locale.ROOT, ROW, l.text() + (l.aborted() ? " (aborted)" : ""),
                    s.completed() + "/" + s.records().size(), fixed(s.inputsPerSecond(), 2),
                    fixed(s.tokensPerSecond(), 1), fixed(s.p50(), 4), fixed(s.p90(), 4), fixed(s.p99(), 4),
                    Integer.toString(s.errors())));
        }
        return b.toString();
    }

    /** Writes {@code <base>_embeddings_sweep.csv} into {@code dir}. */
    public static Path writeCsv(Path dir, String base, String loadUnit, List<Level> levels) throws IOException {
        Files.createDirectories(dir);
        Path csv = dir.resolve(base + "_embeddings_sweep.csv");
        try (Writer w = Files.newBufferedWriter(csv, StandardCharsets.UTF_8);
             CSVPrinter printer = new CSVPrinter(w, CSVFormat.DEFAULT.builder()
                     .setHeader(COLUMNS.toArray(String[]::new)).build())) {
            for (Level l : levels) {
                EmbeddingsSummary s = l.summary();
                printer.printRecord(l.text(), loadUnit, s.records().size(), s.completed(), s.errors(),
                        csvNumber(s.inputsPerSecond()), csvNumber(s.tokensPerSecond()), csvNumber(s.p50()),
                        csvNumber(s.p90()), csvNumber(s.p99()), csvNumber(s.mean()), l.aborted(),
                        l.folder() == null ? "" : l.folder());
            }
        }
        return csv;
    }

    private static String csvNumber(double value) {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%.6f", value) : "";
    }
}

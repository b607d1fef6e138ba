package io.llmperf4j.report.llmperf;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.report.csv.RequestCsvWriter;
import io.llmperf4j.report.python.PythonJsonWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Writes a run's results into a directory: llmperf's two JSON files, byte-compatible with what llmperf writes
 * ({@code json.dump(..., indent=4)}, no trailing newline), and our per-request CSV.
 */
public final class LlmperfResultWriter {

    private LlmperfResultWriter() {
    }

    /**
     * Writes {@code <base>_summary.json}, {@code <base>_individual_responses.json} and {@code <base>_requests.csv}
     * into {@code resultsDir}, creating it and its parents if missing and replacing existing files.
     *
     * @throws NotDirectoryException if {@code resultsDir} exists but is not a directory (llmperf's ValueError)
     */
    public static LlmperfResultFiles write(BenchmarkRun run, Path resultsDir) throws IOException {
        return write(run, LlmperfSummary.of(run), resultsDir);
    }

    /** The same, the CSV with each request's send lag ({@link RequestCsvWriter#SEND_LAG_COLUMN}) when not empty. */
    public static LlmperfResultFiles write(BenchmarkRun run, Map<String, Long> sendLagNanos, Path resultsDir)
            throws IOException {
        return write(run, LlmperfSummary.of(run), sendLagNanos, Map.of(), resultsDir);
    }

    /**
     * The same, the CSV with each request's client delay too ({@link RequestCsvWriter#CLIENT_DELAY_COLUMN}) when
     * {@code clientDelayNanos} is not empty.
     */
    public static LlmperfResultFiles write(BenchmarkRun run, Map<String, Long> sendLagNanos,
                                           Map<String, Long> clientDelayNanos, Path resultsDir) throws IOException {
        return write(run, LlmperfSummary.of(run), sendLagNanos, clientDelayNanos, resultsDir);
    }

    /** As {@link #write(BenchmarkRun, Path)}, reusing a summary already computed from {@code run}. */
    public static LlmperfResultFiles write(BenchmarkRun run, LlmperfSummary summary, Path resultsDir)
            throws IOException {
        return write(run, summary, Map.of(), Map.of(), resultsDir);
    }

    private static LlmperfResultFiles write(BenchmarkRun run, LlmperfSummary summary, Map<String, Long> sendLagNanos,
                                            Map<String, Long> clientDelayNanos, Path resultsDir) throws IOException {
        if (Files.exists(resultsDir) && !Files.isDirectory(resultsDir)) {
            throw new NotDirectoryException(resultsDir.toString());
        }
        Files.createDirectories(resultsDir);

        Path summaryJson = resultsDir.resolve(LlmperfFileNames.summaryFileName(run.settings()));
        Files.writeString(summaryJson, PythonJsonWriter.toJson(LlmperfSummaryDocument.toJsonObject(summary)),
                StandardCharsets.UTF_8);

        Path individualJson = resultsDir.resolve(LlmperfFileNames.individualResponsesFileName(run.settings()));
        try (Writer out = Files.newBufferedWriter(individualJson, StandardCharsets.UTF_8)) {
            PythonJsonWriter.writeArray(summary.requests(), LlmperfRequestMetrics::toJsonObject, out);
        }

        Path requestsCsv = resultsDir.resolve(LlmperfFileNames.requestsCsvFileName(run.settings()));
        RequestCsvWriter.write(run.records(), sendLagNanos, clientDelayNanos, requestsCsv);
        return new LlmperfResultFiles(summaryJson, individualJson, requestsCsv);
    }
}

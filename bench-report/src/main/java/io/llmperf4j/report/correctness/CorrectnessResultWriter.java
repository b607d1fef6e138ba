package io.llmperf4j.report.correctness;

import io.llmperf4j.model.disk.WholeFiles;
import io.llmperf4j.report.output.ResultFiles;
import io.llmperf4j.report.python.PythonJsonWriter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes llmperf's two correctness files ({@code json.dump(..., indent=4)}, no trailing newline):
 * {@code <base>_summary.json} and {@code <base>_individual_responses.json}, {@code base} =
 * {@link CorrectnessReport#baseName}.
 */
public final class CorrectnessResultWriter {

    private CorrectnessResultWriter() {
    }

    /**
     * Writes both files into {@code resultsDir}, creating it and its parents if missing and replacing existing files;
     * each is written whole or not at all ({@link WholeFiles#write}).
     *
     * @param timestampEpochS the summary's {@code timestamp} (llmperf: {@code int(time.time())} when writing)
     * @throws NotDirectoryException if {@code resultsDir} exists but is not a directory (llmperf's ValueError)
     */
    public static CorrectnessResultFiles write(CorrectnessReport report, Path resultsDir, long timestampEpochS)
            throws IOException {
        if (Files.exists(resultsDir) && !Files.isDirectory(resultsDir)) {
            throw new NotDirectoryException(resultsDir.toString());
        }
        String base = CorrectnessReport.baseName(report.settings().model());
        // each file whole or absent: a full disk leaves no cut summary under llmperf's name
        List<Path> files = WholeFiles.write(resultsDir, into -> {
            Path summary = into.resolve(base + "_summary.json");
            Files.writeString(summary, PythonJsonWriter.toJson(report.summaryJson(timestampEpochS)),
                    StandardCharsets.UTF_8);
            Path individual = into.resolve(base + "_individual_responses.json");
            Files.writeString(individual, PythonJsonWriter.toJson(report.individualResponsesJson()),
                    StandardCharsets.UTF_8);
            return List.of(summary, individual);
        });
        return new CorrectnessResultFiles(files.get(0), files.get(1));
    }
}

package io.llmperf4j.cli;

import io.llmperf4j.model.disk.WholeFiles;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The embeddings benchmark, correctness and calibrate on a disk that fills as their last file is written (as
 * {@link FullDiskTest} for the token benchmark): the console's figures first, a one-line error naming the file not
 * written and those kept, exit 1, and every file whole or absent.
 */
class FullDiskOtherCommandsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b);

    @Test
    void anEmbeddingsRunWhoseCsvDoesNotFitPrintsItsFiguresAndKeepsItsSummaryWhole(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("full");
        CliRun full;
        try (AutoCloseable disk = FullDisk.fullAt(".csv").under(dir)) {
            full = CliRun.of(server.env(), "token-benchmark", "--model", "sim", "--llm-api", "embeddings",
                    "--mean-input-tokens", "50", "--stddev-input-tokens", "0", "--max-num-completed-requests", "4",
                    "--num-concurrent-requests", "2", "--no-server-metrics", "--results-dir", dir.toString());
        }
        assertEquals(1, full.exitCode(), full::toString);
        Set<String> kept = names(dir);
        assertEquals(1, kept.size(), "the summary alone: " + full);
        String summary = kept.iterator().next();
        assertTrue(summary.endsWith(".json"), kept::toString);
        JSON.readTree(dir.resolve(summary).toFile());
        String base = summary.replaceFirst("_summary\\.json$", "");
        List<String> errors = errorLines(full);
        assertEquals(1, errors.size(), full::toString);
        assertTrue(errors.get(0).startsWith("llmperf4j: error: could not write results to " + dir + ": could not write "
                + base), full::toString);
        assertTrue(errors.get(0).endsWith(".csv (No space left on device); kept whole: " + summary
                + "; the report above has the run's figures"), full::toString);
        assertTrue(full.out().contains("p50"), "the figures, printed first: " + full);
    }

    @Test
    void aCorrectnessRunWhoseResponsesDoNotFitKeepsItsSummaryWhole(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("full");
        CliRun full;
        try (AutoCloseable disk = FullDisk.fullAt("_individual_responses.json").under(dir)) {
            full = CliRun.of(server.env(), "correctness", "--model", "m", "--max-num-completed-requests", "4",
                    "--num-concurrent-requests", "2", "--results-dir", dir.toString());
        }
        assertEquals(1, full.exitCode(), full::toString);
        Set<String> kept = names(dir);
        assertEquals(1, kept.size(), full::toString);
        String summary = kept.iterator().next();
        assertTrue(summary.endsWith("_summary.json"), kept::toString);
        JSON.readTree(dir.resolve(summary).toFile());
        assertEquals(List.of("llmperf4j: error: could not write results to " + dir + ": could not write "
                + summary.replace("_summary.json", "_individual_responses.json") + " (No space left on device); "
                + "kept whole: " + summary), errorLines(full), full::toString);
        assertTrue(full.out().contains("Mismatched and errored requests."), "the results, printed first: " + full);
    }

    @Test
    void aCalibrationWhoseCsvDoesNotFitKeepsItsJsonWhole(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("full");
        CliRun full;
        try (AutoCloseable disk = FullDisk.fullAt("calibration.csv").under(dir)) {
            full = CliRun.of(Map.of(), "calibrate", "--concurrency", "1", "--ttft-ms", "2", "--inter-token-ms", "1",
                    "--output-tokens", "4", "--requests", "4", "--warmup-s", "0", "--results-dir", dir.toString());
        }
        assertEquals(1, full.exitCode(), full::toString);
        assertEquals(Set.of("calibration.json"), names(dir), full::toString);
        JSON.readTree(dir.resolve("calibration.json").toFile());
        assertEquals(List.of("llmperf4j: error: could not write results to " + dir + ": could not write "
                + "calibration.csv (No space left on device); kept whole: calibration.json"), errorLines(full),
                full::toString);
        assertTrue(full.out().lines().anyMatch(l -> l.matches("\\s+1\\s+4/4\\s.*")), "the table first: " + full);
    }

    /** The error lines, without the hint to run with --debug. */
    private static List<String> errorLines(CliRun run) {
        return run.err().lines().filter(l -> l.startsWith("llmperf4j: error: "))
                .map(l -> l.replace(" (run with --debug for details)", "")).toList();
    }

    /** The names in {@code dir}, hidden ones included, without the file list a run keeps of what it wrote. */
    private static Set<String> names(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            Set<String> names = new TreeSet<>(files.map(p -> p.getFileName().toString()).toList());
            names.remove(".llmperf4j-files");
            assertTrue(!names.contains(WholeFiles.STAGING), "no staging folder left: " + names);
            return names;
        }
    }
}

package io.llmperf4j.cli;

import io.llmperf4j.model.disk.WholeFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A {@code --save-workload} manifest is whole or absent on a full disk, as every result file is ({@link
 * FullDiskTest}): a cut manifest under the user's name would be read by a later {@code --workload} run as a shorter
 * workload. The error names the file; an earlier manifest of that name is left as it was.
 */
class FullDiskManifestTest {
    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(1))
            .interTokenDelay(Duration.ofMillis(1)));

    private static CliRun run(Path results, Path manifest, String seed, String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--max-num-completed-requests",
                "2", "--num-concurrent-requests", "1", "--mean-output-tokens", "3", "--stddev-output-tokens", "0",
                "--no-client-warmup", "--no-server-metrics", "--seed", seed, "--results-dir", results.toString(),
                "--save-workload", manifest.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(server.env(), args.toArray(String[]::new));
    }

    @Test
    void aManifestThatDoesNotFitLeavesTheEarlierOneWholeAndNamesTheFile(@TempDir Path tmp) throws Exception {
        Path folder = tmp.resolve("full");
        Path manifest = folder.resolve("w.jsonl");
        assertEquals(0, run(tmp.resolve("first"), manifest, "1").exitCode());
        byte[] earlier = Files.readAllBytes(manifest);

        CliRun full;
        try (AutoCloseable disk = FullDisk.fullAt("w.jsonl").under(folder)) {
            full = run(tmp.resolve("second"), manifest, "2");
        }
        assertEquals(1, full.exitCode(), full::toString);
        assertEquals(List.of("llmperf4j: error: could not write the workload manifest " + manifest
                + ": could not write w.jsonl (No space left on device); no file was written whole"),
                errorLines(full), full::toString);
        assertArrayEquals(earlier, Files.readAllBytes(manifest), "the earlier manifest, not a cut one");
        assertEquals(List.of(manifest), files(folder), "nothing half-written beside it");
    }

    /** A sweep's manifest holds every level's own prompts: one file, whole or absent too. */
    @Test
    void aSweepsManifestThatDoesNotFitIsAbsent(@TempDir Path tmp) throws Exception {
        Path folder = tmp.resolve("full");
        Path manifest = folder.resolve("levels.jsonl");
        CliRun full;
        try (AutoCloseable disk = FullDisk.fullAt("levels.jsonl").under(folder)) {
            full = run(tmp.resolve("results"), manifest, "3", "--concurrency-sweep", "1,2");
        }
        assertEquals(1, full.exitCode(), full::toString);
        assertEquals(List.of("llmperf4j: error: could not write the workload manifest " + manifest
                + ": could not write levels.jsonl (No space left on device); no file was written whole"),
                errorLines(full), full::toString);
        assertFalse(Files.exists(manifest), "no cut manifest under the user's name");
        assertFalse(Files.exists(folder.resolve(WholeFiles.STAGING)));
    }

    private static List<String> errorLines(CliRun run) {
        return run.err().lines().filter(l -> l.startsWith("llmperf4j: error: "))
                .map(l -> l.replace(" (run with --debug for details)", "")).toList();
    }

    private static List<Path> files(Path dir) throws Exception {
        try (var walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile).sorted().toList();
        }
    }
}

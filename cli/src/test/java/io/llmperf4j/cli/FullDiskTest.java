package io.llmperf4j.cli;

import io.llmperf4j.model.disk.WholeFiles;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.report.jsonl.RequestJournal;
import io.llmperf4j.run.ResultsFolder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A full disk never loses a run's numbers nor leaves a broken results folder (QA, on a 48 KiB and a 12 KiB tmpfs):
 * the console report is printed whatever the disk says, every file is whole or absent (never cut or empty under a
 * result's name), the error names the file that could not be written and those kept, the journal keeps whole
 * records only, and an --overwrite rerun clears what the broken run left even without its file list. The full disk
 * is {@link FullDisk}, put under the run's folder through the product's own seam ({@code ResultsDisk}).
 */
class FullDiskTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BASE = "m_550_3";

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(2))
            .interTokenDelay(Duration.ofMillis(2)));

    private static CliRun run(Path dir, int requests, int concurrency, String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--max-num-completed-requests",
                String.valueOf(requests), "--num-concurrent-requests", String.valueOf(concurrency),
                "--mean-output-tokens", "3", "--stddev-output-tokens", "0", "--no-client-warmup",
                "--results-dir", dir.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(server.env(), args.toArray(String[]::new));
    }

    @Test
    void aDiskThatFillsWhileTheFilesAreWrittenKeepsTheConsoleReportAndWholeFiles(@TempDir Path tmp) throws Exception {
        Path roomy = tmp.resolve("roomy");
        assertEquals(0, run(roomy, 2, 2, "--no-server-metrics").exitCode());
        List<String> small = List.of(BASE + "_summary.json", BASE + "_individual_responses.json",
                BASE + "_requests.csv", BASE + "_llmperf4j_summary.json", "requests.jsonl");
        long smallBytes = 0;
        for (String name : small) smallBytes += Files.size(roomy.resolve(name));
        assertTrue(Files.size(roomy.resolve(BASE + "_report.html")) > 20_000, "the page is the file that won't fit");

        Path dir = tmp.resolve("full");
        CliRun full;
        try (AutoCloseable disk = new FullDisk(smallBytes + 2_000).under(dir)) { // the journal and JSON/CSV fit
            full = run(dir, 2, 2, "--no-server-metrics"); // its CSV is small enough to fit after the page failed
        }
        assertEquals(1, full.exitCode(), full::toString);
        // the console report, which needs no disk: the table and llmperf's block
        assertTrue(full.out().contains("llmperf4j: m, concurrency 2, 2 requests (2 ok, 0 failed) in "), full::toString);
        assertTrue(full.out().contains("Number Of Errored Requests: 0\n"), full::toString);
        List<String> errors = full.err().lines().filter(l -> l.startsWith("llmperf4j: error: ")).toList();
        assertEquals(List.of("llmperf4j: error: could not write results to " + dir + ": could not write " + BASE
                + "_report.html (No space left on device); kept whole: " + String.join(", ", small.subList(0, 3))
                + ", " + small.get(3) + ", " + small.get(4) + "; the report above has the run's figures"),
                errors.stream().map(l -> l.replace(" (run with --debug for details)", "")).toList(), full::toString);
        assertFalse(full.err().contains("Results written to"), full::toString);
        // whole or absent: the page is not there cut, nothing half-written is left under any name; the file list,
        // small enough to fit once the page's bytes were freed, names the files kept, whole
        Set<String> kept = new TreeSet<>(small);
        kept.add(".llmperf4j-files");
        assertEquals(kept, names(dir), full::toString);
        assertEquals(new TreeSet<>(small), new TreeSet<>(Files.readAllLines(dir.resolve(".llmperf4j-files"))));
        assertEveryFileWhole(dir);
        assertEquals(2, JSON.readTree(dir.resolve(BASE + "_individual_responses.json").toFile()).size());
    }

    @Test
    void aDiskThatFillsDuringTheRunKeepsWholeRecordsAndNoBrokenFile(@TempDir Path tmp) throws Exception {
        Path roomy = tmp.resolve("roomy");
        assertEquals(0, run(roomy, 2, 1).exitCode());
        List<String> lines = Files.readAllLines(roomy.resolve(RequestJournal.FILE_NAME));
        long twoAndAHalfRecords = (lines.get(0).length() + 1L) * 5 / 2;

        Path dir = tmp.resolve("full");
        CliRun full;
        try (AutoCloseable disk = new FullDisk(twoAndAHalfRecords).under(dir)) {
            full = run(dir, 6, 1);
        }
        assertEquals(1, full.exitCode(), full::toString);
        String journal = Files.readString(dir.resolve(RequestJournal.FILE_NAME));
        assertTrue(journal.endsWith("\n"), "the cut third record is taken back off: " + journal);
        List<String> warnings = new ArrayList<>();
        assertEquals(2, RequestJournal.read(dir.resolve(RequestJournal.FILE_NAME), warnings::add).size());
        assertEquals(List.of(), warnings);
        // no file of llmperf's names, empty or cut: the disk had no room for them, so none is there
        assertEquals(Set.of(RequestJournal.FILE_NAME), names(dir), full::toString);
        String error = full.err().lines().filter(l -> l.startsWith("llmperf4j: error: ")).findFirst().orElse("");
        // the third request ended and is on the console, but the journal could not keep it: the error says both
        assertTrue(error.startsWith("llmperf4j: error: the run failed after 3 finished requests, 2 kept in "
                + "requests.jsonl (could not append to "
                + dir.resolve(RequestJournal.FILE_NAME) + ": No space left on device) and its results could not be "
                + "written: could not write results to " + dir + ": could not write "), full::toString);
        for (String name : List.of("_summary.json", "_individual_responses.json", "_requests.csv",
                "_llmperf4j_summary.json", "_report.html")) {
            assertTrue(error.contains(BASE + name), "names every file not written: " + full);
        }
        assertTrue(error.contains("(No space left on device); kept whole: requests.jsonl"), full::toString);
        // the figures of the requests it recorded, on the console
        assertTrue(full.out().contains("llmperf4j: m, concurrency 1, 3 requests (3 ok, 0 failed) in "), full::toString);
        assertTrue(full.out().contains("Number Of Completed Requests: 3\n"), full::toString);

        CliRun report = CliRun.of(Map.of(), "report", dir.toString());
        report.assertOneErrorLine(ExitCodes.FAILURE, dir + " holds only the journal of a run stopped before it "
                + "wrote its summary (requests.jsonl, 2 requests): ");
    }

    /**
     * No room for the folder files are written in before their rename: the error says which folder and the OS's
     * reason (not "could not write a file"), and still names the files kept (the journal, appended in place).
     */
    @Test
    void aStagingFolderThatCannotBeMadeIsNamedWithItsReason(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("full");
        CliRun full;
        try (AutoCloseable disk = FullDisk.noRoomForFolder(io.llmperf4j.model.disk.WholeFiles.STAGING).under(dir)) {
            full = run(dir, 2, 1, "--no-server-metrics");
        }
        assertEquals(1, full.exitCode(), full::toString);
        assertTrue(full.out().contains("llmperf4j: m, concurrency 1, 2 requests (2 ok, 0 failed) in "), full::toString);
        assertEquals(List.of("llmperf4j: error: could not write results to " + dir + ": could not make "
                + dir.resolve(".llmperf4j-writing") + ", the folder files are written in before they are renamed into "
                + "place (No space left on device); kept whole: requests.jsonl; the report above has the run's "
                + "figures"), errorLines(full), full::toString);
        assertEquals(Set.of(RequestJournal.FILE_NAME), names(dir), full::toString);
        assertEquals(2, RequestJournal.wholeLines(dir.resolve(RequestJournal.FILE_NAME)));
    }

    /** A sweep's table, rewritten after every level, is whole or absent too; each level's folder whole. */
    @Test
    void aSweepWhoseTableDoesNotFitLeavesNoCutTable(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("full");
        CliRun full;
        try (AutoCloseable disk = FullDisk.fullAt("_sweep.json").under(dir)) { // as the first level's table is written
            full = run(dir, 2, 1, "--concurrency-sweep", "1,2", "--no-server-metrics");
        }
        assertEquals(1, full.exitCode(), full::toString);
        assertTrue(full.err().contains("llmperf4j: error: could not write the sweep files in " + dir
                + ": could not write " + BASE + "_sweep.csv, " + BASE + "_sweep.json (No space left on device); no "
                + "file was written whole"), full::toString);
        assertFalse(Files.exists(dir.resolve(BASE + "_sweep.json")), "no cut table: " + names(dir));
        assertFalse(Files.exists(dir.resolve(BASE + "_sweep.csv")), names(dir)::toString);
        assertFalse(Files.exists(dir.resolve(WholeFiles.STAGING)));
        Path level = dir.resolve("concurrency_1");
        assertEquals(Set.of(BASE + "_summary.json", BASE + "_individual_responses.json", BASE + "_requests.csv",
                BASE + "_llmperf4j_summary.json", "requests.jsonl", BASE + "_report.html"), names(level),
                "the first level's files, all of them");
        assertEveryFileWhole(level);
    }

    /**
     * A sweep's page, written after its last table: the table's files are kept whole, the page is absent (never cut),
     * the sweep's table is on the console before the error, which names the page and the files kept.
     */
    @Test
    void aSweepWhosePageDoesNotFitPrintsItsTableAndKeepsItsFilesWhole(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("full");
        CliRun full;
        try (AutoCloseable disk = FullDisk.fullAt("full/" + BASE + "_report.html").under(dir)) { // not a level's page
            full = run(dir, 2, 1, "--concurrency-sweep", "1,2", "--no-server-metrics");
        }
        assertEquals(1, full.exitCode(), full::toString);
        assertTrue(full.out().contains("Sweep of m: concurrency sweep 1,2, 2 requests per level\n"),
                "the sweep's table, printed first: " + full);
        assertEquals(List.of("llmperf4j: error: could not write results to " + dir + ": could not write " + BASE
                + "_report.html (No space left on device); kept whole: " + BASE + "_sweep.json, " + BASE
                + "_sweep.csv; the report above has the run's figures"), errorLines(full), full::toString);
        assertEquals(Set.of(BASE + "_sweep.json", BASE + "_sweep.csv", "concurrency_1", "concurrency_2",
                ".llmperf4j-files"), names(dir), full::toString);
        assertEveryFileWhole(dir);
        assertEveryFileWhole(dir.resolve("concurrency_2"));
    }

    /** A capacity search's three files are whole or absent; its answer is on the console before the error. */
    @Test
    void aSearchWhosePageDoesNotFitPrintsItsAnswerAndKeepsItsOtherFilesWhole(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("full");
        CliRun full;
        try (AutoCloseable disk = FullDisk.fullAt("_search.html").under(dir)) {
            full = run(dir, 3, 1, "--slo", "ttft_p99<=10s", "--search", "concurrency", "--search-min", "1",
                    "--search-max", "2", "--search-level-max", "3", "--search-min-samples", "1000",
                    "--search-no-repeat", "--sleep-between", "0", "--no-server-metrics");
        }
        assertEquals(1, full.exitCode(), full::toString);
        assertTrue(full.out().contains("Capacity search of m over "), "the answer, printed first: " + full);
        assertEquals(List.of("llmperf4j: error: could not write the search files in " + dir + ": could not write "
                + BASE + "_search.html (No space left on device); kept whole: " + BASE + "_search.json, " + BASE
                + "_search.csv"), errorLines(full), full::toString);
        assertFalse(Files.exists(dir.resolve(BASE + "_search.html")), "no cut page: " + names(dir));
        assertFalse(Files.exists(dir.resolve(WholeFiles.STAGING)));
        assertTrue(names(dir).containsAll(Set.of(BASE + "_search.json", BASE + "_search.csv")), names(dir)::toString);
        assertEveryFileWhole(dir);
    }

    /** A comparison's CSV that does not fit: absent, not cut, and its page not written from a cut one. */
    @Test
    void aComparisonThatDoesNotFitPrintsItsTableAndLeavesNoCutCsv(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("full");
        CliRun full;
        try (AutoCloseable disk = FullDisk.fullAt("full/comparison.csv").under(dir)) {
            full = CliRun.of(server.env(), "token-benchmark", "--model", "a,b", "--max-num-completed-requests", "2",
                    "--num-concurrent-requests", "1", "--mean-output-tokens", "3", "--stddev-output-tokens", "0",
                    "--no-client-warmup", "--no-server-metrics", "--sleep-between", "0",
                    "--results-dir", dir.toString());
        }
        assertEquals(1, full.exitCode(), full::toString);
        assertTrue(full.out().contains("Comparison: closed loop, concurrency 1, 2 requests; the same workload"),
                "the comparison's table, printed first: " + full);
        assertEquals(List.of("llmperf4j: error: could not write the comparison to " + dir + ": could not write "
                + "comparison.csv (No space left on device); no file was written whole"), errorLines(full),
                full::toString);
        assertEquals(Set.of("a", "b"), names(dir), "no comparison.csv nor its page: " + full);
        assertEveryFileWhole(dir.resolve("b"));
    }

    /** The error lines, without the hint to run with --debug. */
    private static List<String> errorLines(CliRun run) {
        return run.err().lines().filter(l -> l.startsWith("llmperf4j: error: "))
                .map(l -> l.replace(" (run with --debug for details)", "")).toList();
    }

    /**
     * The 12 KiB tmpfs's folder as the QA found it: a 0-byte llmperf summary, a journal with a cut last line, an empty
     * file list; and the user's own files beside them.
     */
    @Test
    void aRerunClearsWhatABrokenRunLeftWithoutItsListAndKeepsTheUsersFiles(@TempDir Path tmp) throws Exception {
        Path roomy = tmp.resolve("roomy");
        assertEquals(0, run(roomy, 2, 1).exitCode());
        List<String> lines = Files.readAllLines(roomy.resolve(RequestJournal.FILE_NAME));
        Path dir = Files.createDirectories(tmp.resolve("left"));
        Files.writeString(dir.resolve("m_550_9_summary.json"), "");
        Files.writeString(dir.resolve(RequestJournal.FILE_NAME), lines.get(0) + "\n" + lines.get(1) + "\n"
                + lines.get(0).substring(0, lines.get(0).length() / 2));
        Files.writeString(dir.resolve(".llmperf4j-files"), "");
        Files.writeString(dir.resolve("notes.txt"), "the user's\n");
        Files.writeString(dir.resolve("my_results.json"), "{\"mine\": true}\n");
        FileTime before = FileTime.from(Instant.now().minusSeconds(3600));
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) Files.setLastModifiedTime(f, before);
        }

        CliRun report = CliRun.of(Map.of(), "report", dir.toString());
        report.assertOneErrorLine(ExitCodes.FAILURE, dir + " holds only the journal of a run stopped before it "
                + "wrote its summary (requests.jsonl, 2 requests; a cut last line skipped): ");

        CliRun rerun = run(dir, 2, 1, "--overwrite");
        assertEquals(0, rerun.exitCode(), rerun::toString);
        assertEquals(new TreeSet<>(List.of(BASE + "_summary.json", BASE + "_individual_responses.json",
                BASE + "_requests.csv", BASE + "_llmperf4j_summary.json", "requests.jsonl", BASE + "_report.html",
                BASE + "_server_metrics.csv", ".llmperf4j-files", "notes.txt", "my_results.json")), names(dir), "the folder never mixes two runs");
        assertEquals("the user's\n", Files.readString(dir.resolve("notes.txt")));
        assertEquals("{\"mine\": true}\n", Files.readString(dir.resolve("my_results.json")));
        assertFalse(Files.exists(dir.resolve(ResultsFolder.ASIDE)));
        assertEquals(2, RequestJournal.wholeLines(dir.resolve(RequestJournal.FILE_NAME)));
        assertEveryFileWhole(dir);
    }

    /**
     * A sweep's files are in level folders too: with its list cut, an --overwrite rerun clears them by name, as the
     * top's, and leaves the user's file in a level folder, a failed run's folder kept on purpose and another run the
     * user keeps below the folder.
     */
    @Test
    void aRerunOverASweepWithoutItsListClearsItsLevelFolders(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("sweep");
        assertEquals(0, run(dir, 2, 1, "--concurrency-sweep", "1,2", "--no-server-metrics").exitCode());
        Files.writeString(dir.resolve(".llmperf4j-files"), "concurrency_1/" + BASE); // cut by a full disk
        Files.writeString(dir.resolve("concurrency_2").resolve("notes.txt"), "the user's\n");
        Path failed = Files.createDirectories(dir.resolve(ResultsFolder.FAILED_PREFIX + "20260101-000000"));
        Files.copy(dir.resolve("concurrency_1").resolve(RequestJournal.FILE_NAME),
                failed.resolve(RequestJournal.FILE_NAME));
        // a whole earlier run the user keeps below the folder: its own list says it is not this run's level
        Path mine = dir.resolve("mine");
        assertEquals(0, run(mine, 2, 1, "--no-server-metrics").exitCode());
        Set<String> minesFiles = names(mine);
        FileTime before = FileTime.from(Instant.now().minusSeconds(3600));
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.toList()) Files.setLastModifiedTime(f, before);
        }

        CliRun rerun = run(dir, 2, 1, "--overwrite", "--no-server-metrics");
        assertEquals(0, rerun.exitCode(), rerun::toString);
        Set<String> expected = new TreeSet<>(List.of(BASE + "_summary.json", BASE + "_individual_responses.json",
                BASE + "_requests.csv", BASE + "_llmperf4j_summary.json", "requests.jsonl", BASE + "_report.html",
                ".llmperf4j-files", "concurrency_2", failed.getFileName().toString(), "mine"));
        assertEquals(expected, names(dir), "no level folder of the sweep left beside the new run: " + rerun);
        assertEquals(minesFiles, names(mine), "another run kept below the folder, with its own list, untouched");
        assertEquals(Set.of("notes.txt"), names(dir.resolve("concurrency_2")), "the user's file only");
        assertEquals(Set.of(RequestJournal.FILE_NAME), names(failed), "kept on purpose, with its own list");
        assertEveryFileWhole(dir);
    }

    /**
     * Python llmperf's files have our names: in a folder llmperf4j never wrote into (no list, journal or llmperf4j
     * summary), an --overwrite run replaces only the files it writes itself, as before.
     */
    @Test
    void aRerunOverPythonLlmperfsFilesLeavesTheirOtherRunsAlone(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("m_550_9_summary.json"), "{\"results_ttft_s_mean\": 0.1}\n");
        Files.writeString(dir.resolve("m_550_9_individual_responses.json"), "[]\n");
        CliRun rerun = run(dir, 2, 1, "--overwrite", "--no-server-metrics");
        assertEquals(0, rerun.exitCode(), rerun::toString);
        assertEquals("{\"results_ttft_s_mean\": 0.1}\n", Files.readString(dir.resolve("m_550_9_summary.json")));
        assertEquals("[]\n", Files.readString(dir.resolve("m_550_9_individual_responses.json")));
    }

    /** The names in {@code dir}, hidden ones and folders included. */
    private static Set<String> names(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return new TreeSet<>(files.map(p -> p.getFileName().toString()).toList());
        }
    }

    /** Every file is whole: none empty, every JSON parses, every CSV and list ends with its last line's newline. */
    private static void assertEveryFileWhole(Path dir) throws IOException {
        Map<String, Long> sizes = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String name = f.getFileName().toString();
                sizes.put(name, Files.size(f));
                assertTrue(Files.size(f) > 0, name + " is empty");
                String text = Files.readString(f, StandardCharsets.UTF_8);
                if (name.endsWith(".json")) {
                    JsonNode doc = JSON.readTree(text);
                    assertFalse(doc.isMissingNode(), name);
                } else if (!name.endsWith(".html")) {
                    assertTrue(text.endsWith("\n"), name + " is cut");
                } else {
                    assertTrue(text.stripTrailing().endsWith("</html>"), name + " is cut");
                }
            }
        }
        assertFalse(sizes.isEmpty());
    }
}

package io.llmperf4j.cli;

import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.run.ResultsFolder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * "A killed run keeps everything it completed" and "a failed rerun loses nothing", for the runs that used to break
 * them: an --overwrite run quit at once by a second signal (the earlier run kept whole and said where, the next
 * --overwrite keeping it in sight), a rerun whose every request failed (the earlier run back, its own files beside),
 * and the refusal of a second run into a folder (it says to give each run its own).
 */
class ResultsFolderSafetyTest {
    // 50 tokens at 20 ms: each request takes about a second, so the run is mid-way when the signals come
    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(5))
            .interTokenDelay(Duration.ofMillis(20)));

    private static CliRun run(Map<String, String> env, Path dir, String... extra) {
        return ResultsFolderTest.runWith(env, dir, extra);
    }

    @Test
    void aSecondSignalDuringAnOverwriteRunKeepsTheEarlierRunWholeAndSaysWhere(@TempDir Path tmp) throws Exception {
        Path dir = null;
        Map<String, String> earlierFiles = null;
        String stderr = "";
        // the second signal must come while the stopped run still writes its files; when the run wrote them all
        // first (it was quicker than the signal), it ended as a stopped run does, and the attempt is made again
        for (int attempt = 0; attempt < 5 && !stderr.contains("quitting at once: "); attempt++) {
            dir = tmp.resolve("two3-" + attempt);
            CliRun earlier = run(server.env(), dir);
            assertEquals(0, earlier.exitCode(), earlier::toString);
            earlierFiles = contents(dir);
            assertTrue(earlierFiles.containsKey("m_550_3_llmperf4j_summary.json"), earlierFiles::toString);
            stderr = stopTwice(dir, tmp.resolve("stderr-" + attempt + ".txt"));
        }
        assertTrue(stderr.contains("quitting at once: "), "no attempt quit before the files were written: " + stderr);
        Path aside = dir.resolve(ResultsFolder.ASIDE);
        List<String> quit = stderr.lines().filter(l -> l.contains("TERM received again: quitting at once")).toList();
        assertEquals(1, quit.size(), stderr);
        assertTrue(quit.get(0).matches(".*\\d+ requests? recorded (are|is) in " + Pattern.quote(dir.resolve("requests.jsonl")
                .toString()) + ".*"), stderr);
        assertTrue(quit.get(0).contains("the earlier run it was replacing is kept whole in " + aside), stderr);
        assertFalse(Files.exists(dir.resolve(ResultsFolder.LOCK_FILE)), "no lock left behind: " + stderr);
        assertEquals(earlierFiles, contents(aside), "the earlier run, whole, where the line says");
        assertFalse(Files.readString(dir.resolve("requests.jsonl")).isEmpty(), "the quit run's records kept");

        // report: what to do with a journal alone, and where the earlier run is (a quit after the summary was
        // written leaves a folder report rebuilds the page of)
        CliRun report = CliRun.of(Map.of(), "report", dir.toString());
        if (Files.exists(dir.resolve("m_550_50_llmperf4j_summary.json"))) {
            assertEquals(0, report.exitCode(), report::toString);
        } else {
            assertJournalOnly(report, dir, aside);
        }

        // a rerun without --overwrite: refused, saying both what the folder holds and what to do
        CliRun refused = run(server.env(), dir);
        refused.assertOneErrorLine(ExitCodes.USAGE, "already holds results (requests.jsonl, and in "
                + ResultsFolder.ASIDE + " the run an interrupted --overwrite run was replacing)");
        assertTrue(refused.err().contains("give each run a folder of its own (e.g. --results-dir "
                + dir.resolve("<model>") + ")"), refused::toString);
        assertEquals(earlierFiles, contents(aside), "a refused run touches nothing set aside");

        // the next --overwrite: the earlier run is kept in sight, and it says so
        CliRun next = run(server.env(), dir, "--overwrite");
        assertEquals(0, next.exitCode(), next::toString);
        List<Path> kept = folders(dir, ResultsFolder.KEPT_PREFIX);
        assertEquals(1, kept.size(), next::toString);
        assertTrue(next.err().contains("are kept in " + kept.get(0)), next::toString);
        assertEquals(earlierFiles, contents(kept.get(0)), "the earlier run, whole, never removed unasked");
        assertFalse(Files.exists(aside), next::toString);
        assertEquals(0, CliRun.of(Map.of(), "report", kept.get(0).toString()).exitCode(), "a run folder of its own");
        assertEquals(0, CliRun.of(Map.of(), "report", dir.toString()).exitCode(), "the new run's folder");
    }

    @Test
    void anOverwriteRerunWhoseEveryRequestFailedGivesTheFolderBackToTheEarlierRun(@TempDir Path dir)
            throws Exception {
        CliRun earlier = run(server.env(), dir);
        assertEquals(0, earlier.exitCode(), earlier::toString);
        Map<String, String> earlierFiles = contents(dir);

        CountDownLatch release = new CountDownLatch(1);
        HttpServer hanging = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        hanging.setExecutor(Executors.newCachedThreadPool());
        hanging.createContext("/", exchange -> {
            try {
                release.await(); // never answers while the run waits: every request times out
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
        });
        hanging.start();
        CliRun failed;
        try {
            failed = run(Map.of("OPENAI_API_BASE", "http://127.0.0.1:" + hanging.getAddress().getPort() + "/v1",
                    "OPENAI_API_KEY", "k"), dir, "--overwrite", "--timeout", "1");
        } finally {
            release.countDown();
            hanging.stop(0);
        }
        assertEquals(ExitCodes.REQUESTS_FAILED, failed.exitCode(), failed::toString);
        assertTrue(failed.err().contains("the run failed: every request failed (2 of 2)"), failed::toString);
        List<Path> kept = folders(dir, ResultsFolder.FAILED_PREFIX);
        assertEquals(1, kept.size(), failed::toString);
        assertTrue(failed.err().contains("the earlier run's files are back in " + dir + " (a rerun whose every "
                + "request failed replaces nothing); this run's files are in " + kept.get(0)), failed::toString);
        assertEquals(List.of("Results written to " + kept.get(0).toAbsolutePath()), failed.err().lines()
                .filter(l -> l.startsWith("Results written to ")).map(l -> l.substring(0, l.indexOf(": "))).toList(),
                "the line names where this run's files went, not the folder they left: " + failed);

        Map<String, String> now = contents(dir);
        now.keySet().removeIf(name -> name.startsWith(ResultsFolder.FAILED_PREFIX));
        assertEquals(earlierFiles, now, "the earlier run is back, byte for byte, and nothing else at its place");
        Map<String, String> failedFiles = contents(kept.get(0));
        assertEquals(2, failedFiles.get("requests.jsonl").lines().filter(l -> l.contains("\"CANCELLED\"")).count(),
                "its records, each cancelled at --timeout: " + failedFiles.keySet());
        assertTrue(failedFiles.containsKey("m_550_3_llmperf4j_summary.json"), failedFiles::toString);
        assertTrue(failedFiles.get(".llmperf4j-files").contains("m_550_3_llmperf4j_summary.json"), "its own list");
        assertEquals(0, CliRun.of(Map.of(), "report", dir.toString()).exitCode(), "one run in the folder");
        assertEquals(0, CliRun.of(Map.of(), "report", kept.get(0).toString()).exitCode(), "the failed run's page");

        // a second run (another model, as llmperf users loop): refused, naming the folder's own run, not the failed
        // one's folder, and saying to give each run its own
        CliRun refused = run(server.env(), dir, "--model", "other");
        refused.assertOneErrorLine(ExitCodes.USAGE, "already holds results (m_550_3_individual_responses.json); "
                + "give each run a folder of its own (e.g. --results-dir " + dir.resolve("<model>") + ")");

        // the next --overwrite replaces the earlier run; the failed one's folder stays until removed
        CliRun next = run(server.env(), dir, "--overwrite");
        assertEquals(0, next.exitCode(), next::toString);
        assertEquals(failedFiles.keySet(), contents(kept.get(0)).keySet());
    }

    /** The quit at once before anything was recorded: the earlier run's files go back where they were. */
    @Test
    void aQuitBeforeAnythingWasRecordedPutsTheEarlierRunBack(@TempDir Path dir) throws Exception {
        CliRun earlier = run(server.env(), dir);
        assertEquals(0, earlier.exitCode(), earlier::toString);
        Map<String, String> earlierFiles = contents(dir);
        ByteArrayOutputStream notices = new ByteArrayOutputStream();
        ResultsFolder folder = ResultsFolder.lock(dir, true, new PrintStream(notices, true, StandardCharsets.UTF_8));
        folder.replaceEarlier();
        assertTrue(Files.isDirectory(dir.resolve(ResultsFolder.ASIDE)));
        Files.createFile(dir.resolve("requests.jsonl")); // the new run's journal, opened, nothing in it
        String said = folder.quit();
        assertEquals("nothing recorded; the earlier run's files are back in " + dir, said);
        assertEquals(earlierFiles, contents(dir), "the folder as it was, without a lock file");
        assertNotNull(said);
        folder.close(); // the run's own close after the quit: a no-op
        assertEquals(earlierFiles, contents(dir));
    }

    private static void assertJournalOnly(CliRun report, Path dir, Path aside) {
        report.assertOneErrorLine(ExitCodes.FAILURE, dir + " holds only the journal of a run stopped before it "
                + "wrote its summary (requests.jsonl, ");
        assertTrue(report.err().contains("llmperf4j compare " + dir + " OTHER_DIR reads the journal as it is"),
                report::toString);
        assertTrue(report.err().contains("kept whole in " + aside + ": move its files back into " + dir),
                report::toString);
    }

    /**
     * An --overwrite run into {@code dir}, in a process of its own, stopped by SIGTERM once its first requests are
     * journaled, then sent SIGTERM again as soon as it says it stops (two signals at once would be one: the
     * system keeps one pending signal of a kind); its stderr once it ended, exit 130.
     */
    private static String stopTwice(Path dir, Path stderrFile) throws Exception {
        Process process = startOverwriteRun(dir, stderrFile);
        try {
            Path journal = dir.resolve("requests.jsonl");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            // the earlier run's files set aside, and the new run's first requests journaled
            while (process.isAlive() && System.nanoTime() < deadline && !(Files.isDirectory(dir.resolve(
                    ResultsFolder.ASIDE)) && Files.exists(journal) && Files.readAllLines(journal).size() >= 3)) {
                Thread.sleep(20);
            }
            assertTrue(process.isAlive(), Files.readString(stderrFile));
            Signals.send(process, "TERM");
            while (process.isAlive() && System.nanoTime() < deadline
                    && !Files.readString(stderrFile).contains("TERM received: stopping")) {
                Thread.sleep(1);
            }
            Signals.send(process, "TERM");
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the process did not quit");
            String stderr = Files.readString(stderrFile);
            assertEquals(ExitCodes.INTERRUPTED, process.exitValue(), stderr);
            return stderr;
        } finally {
            process.destroyForcibly();
        }
    }

    private static Process startOverwriteRun(Path dir, Path stderr) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(ChildJvm.command("token-benchmark", "--no-client-warmup", "--model", "m",
                "--max-num-completed-requests", "100", "--num-concurrent-requests", "4", "--mean-output-tokens", "50",
                "--stddev-output-tokens", "0", "--results-dir", dir.toString(), "--overwrite"))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(stderr.toFile());
        builder.environment().putAll(server.env());
        return builder.start();
    }

    private static List<Path> folders(Path dir, String prefix) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.filter(p -> Files.isDirectory(p) && p.getFileName().toString().startsWith(prefix)).sorted()
                    .toList();
        }
    }

    /** Every file under {@code dir} by relative path, with its text. */
    private static Map<String, String> contents(Path dir) throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path file : walk.filter(Files::isRegularFile).toList()) {
                files.put(dir.relativize(file).toString(), Files.readString(file));
            }
        }
        return files;
    }
}

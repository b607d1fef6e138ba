package io.llmperf4j.cli;

import io.llmperf4j.run.ResultsFolder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two runs into one results folder: while one runs, another refuses (a lock file naming the holder); after it, a
 * rerun refuses to replace the kept results unless --overwrite.
 */
class ResultsFolderTest {
    // 3 tokens at 25 ms: the runs in process are short; the one in a JVM of its own waits on a relay instead
    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(5))
            .interTokenDelay(Duration.ofMillis(25)));

    private static Map<String, String> env() {
        return server.env();
    }

    private static CliRun run(Path dir, String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--max-num-completed-requests",
                "2", "--num-concurrent-requests", "2", "--mean-output-tokens", "3", "--stddev-output-tokens", "0",
                "--no-client-warmup", "--results-dir", dir.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(env(), args.toArray(String[]::new));
    }

    @Test
    void aRerunIntoAFolderWithResultsIsRefusedUnlessOverwrite(@TempDir Path dir) throws Exception {
        assertEquals(0, run(dir).exitCode());
        Path summary = dir.resolve("m_550_3_summary.json");
        String kept = Files.readString(summary);

        CliRun again = run(dir);
        again.assertOneErrorLine(ExitCodes.USAGE, "results folder " + dir + " already holds results");
        assertTrue(again.err().contains("--overwrite"), again::toString);
        assertEquals(kept, Files.readString(summary), "the kept run is untouched");
        assertFalse(Files.exists(dir.resolve(ResultsFolder.LOCK_FILE)), "no lock left behind");

        CliRun overwritten = run(dir, "--overwrite");
        assertEquals(0, overwritten.exitCode(), overwritten::toString);
        assertFalse(Files.exists(dir.resolve(ResultsFolder.LOCK_FILE)), "the lock is removed after the run");
    }

    /**
     * --overwrite with other token lengths: the earlier run's files (other names) go, so report and compare find one
     * run; a file of the user's (even a result-like one written before) and a redirected stderr.txt stay.
     */
    @Test
    void overwriteRemovesTheEarlierRunsFilesAndNothingElse(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("my-notes.csv"), "the user's own\n");
        assertEquals(0, run(dir, "--overwrite").exitCode());
        assertTrue(Files.exists(dir.resolve("m_550_3_summary.json")));
        Files.writeString(dir.resolve("stderr.txt"), "redirected\n");

        CliRun rerun = run(dir, "--overwrite", "--mean-output-tokens", "4");
        assertEquals(0, rerun.exitCode(), rerun::toString);
        assertTrue(Files.exists(dir.resolve("m_550_4_summary.json")), rerun::toString);
        for (String old : List.of("m_550_3_summary.json", "m_550_3_individual_responses.json",
                "m_550_3_requests.csv", "m_550_3_llmperf4j_summary.json")) {
            assertFalse(Files.exists(dir.resolve(old)), old + " of the earlier run is gone");
        }
        assertEquals("the user's own\n", Files.readString(dir.resolve("my-notes.csv")));
        assertEquals("redirected\n", Files.readString(dir.resolve("stderr.txt")));
        CliRun report = CliRun.of(Map.of(), "report", dir.toString());
        assertEquals(0, report.exitCode(), "one run in the folder: " + report);
    }

    /**
     * --overwrite replaces the earlier run's files only once the new run writes results: a run that fails before its
     * measurement (nothing listening, a 401 at the pre-run check) leaves every earlier file as it was, its sweep
     * level folders included; the next --overwrite that runs still replaces them.
     */
    @Test
    void overwriteThatFailsBeforeTheMeasurementKeepsEveryEarlierFile(@TempDir Path dir) throws Exception {
        CliRun sweep = run(dir, "--concurrency-sweep", "1,2", "--sleep-between", "0");
        assertEquals(0, sweep.exitCode(), sweep::toString);
        Map<String, String> before = contents(dir);
        assertTrue(before.containsKey("concurrency_1/m_550_3_summary.json"), before.keySet()::toString);
        assertTrue(before.containsKey(".llmperf4j-files"), before.keySet()::toString);

        int closed;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            closed = socket.getLocalPort(); // free, and nothing listens once closed
        }
        CliRun unreachable = runWith(Map.of("OPENAI_API_BASE", "http://127.0.0.1:" + closed + "/v1",
                "OPENAI_API_KEY", "k"), dir, "--overwrite");
        assertEquals(ExitCodes.FAILURE, unreachable.exitCode(), unreachable::toString);
        assertTrue(unreachable.err().contains("cannot reach"), unreachable::toString);
        assertEquals(before, contents(dir), "nothing of the earlier run removed");

        com.sun.net.httpserver.HttpServer unauthorized = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        unauthorized.createContext("/", exchange -> {
            byte[] body = "{\"error\":{\"message\":\"Invalid API key\"}}".getBytes();
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(401, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        unauthorized.start();
        try {
            CliRun denied = runWith(Map.of("OPENAI_API_BASE", "http://127.0.0.1:"
                    + unauthorized.getAddress().getPort() + "/v1", "OPENAI_API_KEY", "wrong"), dir, "--overwrite");
            assertTrue(denied.exitCode() != 0, denied::toString);
            assertTrue(denied.err().contains("401"), denied::toString);
            assertEquals(before, contents(dir), "nothing of the earlier run removed");
        } finally {
            unauthorized.stop(0);
        }

        CliRun replaced = run(dir, "--overwrite");
        assertEquals(0, replaced.exitCode(), replaced::toString);
        Map<String, String> after = contents(dir);
        assertFalse(after.keySet().stream().anyMatch(f -> f.startsWith("concurrency_")), after.keySet()::toString);
        assertTrue(after.containsKey("m_550_3_summary.json"), after.keySet()::toString);
        assertFalse(Files.exists(dir.resolve(".llmperf4j-replaced")), "nothing kept aside after a run that wrote");
        // the list names exactly the new run's result files
        assertEquals(after.keySet().stream().filter(f -> !f.startsWith(".")).sorted().toList(),
                Files.readAllLines(dir.resolve(".llmperf4j-files")).stream().sorted().toList());
    }

    /** Every file under {@code dir} (relative path, with / separators) and its content. */
    private static Map<String, String> contents(Path dir) throws java.io.IOException {
        Map<String, String> files = new java.util.TreeMap<>();
        try (var walk = Files.walk(dir)) {
            for (Path file : walk.filter(Files::isRegularFile).toList()) {
                files.put(dir.relativize(file).toString().replace('\\', '/'), Files.readString(file));
            }
        }
        return files;
    }

    /** A two-request token-benchmark into {@code dir} (the folder tests' run), with {@code extra} flags. */
    static CliRun runWith(Map<String, String> env, Path dir, String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--max-num-completed-requests",
                "2", "--num-concurrent-requests", "2", "--mean-output-tokens", "3", "--stddev-output-tokens", "0",
                "--no-client-warmup", "--results-dir", dir.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(env, args.toArray(String[]::new));
    }

    @Test
    void aResultsPathThatIsAFileSaysSo(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("results"), "not a folder\n");
        run(file).assertOneErrorLine(ExitCodes.FAILURE, "results folder " + file
                + " cannot be written: it is a file, not a folder");
    }

    @Test
    void filesThatAreNotResultsDoNotCount(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("stderr.txt"), "a shell redirect made before the run\n");
        CliRun run = run(dir);
        assertEquals(0, run.exitCode(), run::toString);
    }

    @Test
    void aSecondRunWhileTheFirstIsWritingRefusesNamingTheHolder(@TempDir Path dir) throws Exception {
        // the pre-run check and the first two requests pass, the other six wait in the relay until the second run
        // was refused: the first run is known to hold the folder then, however slowly this machine runs it
        try (CountingProxy relay = new CountingProxy(server.port()).holdPostsAfter(3)) {
            Process first = startRun(dir, relay.baseUrl());
            try {
                Path journal = dir.resolve("requests.jsonl");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!(Files.exists(journal) && Files.size(journal) > 0) && first.isAlive()
                        && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertTrue(first.isAlive(), "the first run is still running");

                CliRun second = run(dir, "--overwrite"); // not even --overwrite takes a folder in use
                second.assertOneErrorLine(ExitCodes.FAILURE, "results folder " + dir + " is in use by another run "
                        + "(pid " + first.pid() + " on ");

                relay.release();
                assertTrue(first.waitFor(120, TimeUnit.SECONDS), "the first run ends");
                assertEquals(0, first.exitValue());
                List<String> lines = Files.readAllLines(journal);
                assertEquals(8, lines.size(), "the first run's journal is whole: " + lines);
                for (String line : lines) {
                    assertTrue(line.startsWith("{") && line.endsWith("}"), line);
                }
            } finally {
                relay.release();
                first.destroyForcibly();
            }
        }
    }

    private static Process startRun(Path dir, String baseUrl) throws Exception {
        // this run's numbers are not what is tested; 8 requests two at a time
        List<String> command = ChildJvm.command("token-benchmark", "--model", "m", "--max-num-completed-requests",
                "8", "--num-concurrent-requests", "2", "--mean-output-tokens", "3", "--stddev-output-tokens", "0",
                "--no-client-warmup", "--results-dir", dir.toString());
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("OPENAI_API_BASE", baseUrl);
        builder.environment().put("OPENAI_API_KEY", "k");
        return builder.start();
    }
}

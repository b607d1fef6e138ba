package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A signal in the middle of a run, sent to a real llmperf4j process: it stops, cancels what is in flight and still
 * writes llmperf's files, the CSV and the journal with every completed request.
 */
class InterruptTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    // 50 tokens at 10 ms: each request takes about half a second, so the run (40 requests, 4 at a time: some 5 s)
    // is mid-way when the signal comes after the first 4 (at 20 ms a token the test waited a second for them)
    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(5))
            .interTokenDelay(Duration.ofMillis(10)));

    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    void aSignalMidRunWritesEveryCompletedRequest(String signal, @TempDir Path dir) throws Exception {
        // a shell starts background jobs with SIGINT ignored, and children inherit that: then no Ctrl-C can arrive
        Assumptions.assumeFalse(signal.equals("INT") && Signals.sigintIgnoredHere(), "SIGINT is ignored in this process tree");
        Process process = startBenchmark(dir);
        try {
            Path journal = dir.resolve("requests.jsonl");
            waitForLines(journal, 4, process);
            Signals.send(process, signal);
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "process did not stop after SIG" + signal);
            String stderr = readIfExists(dir.resolve("stderr.txt").toFile());
            assertEquals(ExitCodes.INTERRUPTED, process.exitValue(), stderr);

            List<String> lines = Files.readAllLines(journal);
            JsonNode individual = JSON.readTree(dir.resolve("m_550_50_individual_responses.json").toFile());
            assertEquals(lines.size(), individual.size(), "every journaled request is in the llmperf file");
            assertTrue(individual.size() < 40, "stopped early: " + individual.size());
            int ok = 0;
            for (JsonNode request : individual) {
                ok += request.get("error_code").isNull() ? 1 : 0;
            }
            assertTrue(ok >= 4, "completed requests kept: " + ok);
            assertTrue(Files.exists(dir.resolve("m_550_50_summary.json")));
            JsonNode summary = JSON.readTree(dir.resolve("m_550_50_llmperf4j_summary.json").toFile());
            assertEquals("SIG" + signal, summary.get("run").path("stopped_by").asText(), summary.get("run")::toString);
            assertTrue(stderr.contains("the run was stopped by SIG" + signal), stderr);
            String page = Files.readString(dir.resolve("m_550_50_report.html"));
            assertTrue(page.contains("<section id=\"stopped\" class=\"card stopped\" role=\"alert\">"
                    + "<strong>Stopped by SIG" + signal + " before its end.</strong>"), "the run page says so at its top");
            List<String> csv = Files.readAllLines(dir.resolve("m_550_50_requests.csv"));
            assertEquals(individual.size() + 1, csv.size());
        } finally {
            process.destroyForcibly();
        }
    }

    /**
     * A signal while the pre-run check waits on a server that never answers: one line, exit 130, the lock released,
     * a folder the run created removed, and with --overwrite every earlier file kept. The two runs go side by side,
     * each against a silent server of its own, so each is known to wait in its own check when its signal comes.
     */
    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    void aSignalDuringThePreRunCheckEndsTheRunWithOneLineAndNothingRemoved(String signal, @TempDir Path tmp)
            throws Exception {
        Assumptions.assumeFalse(signal.equals("INT") && Signals.sigintIgnoredHere(), "SIGINT is ignored in this process tree");
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch asked = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch askedAgain = new java.util.concurrent.CountDownLatch(1);
        com.sun.net.httpserver.HttpServer silent = silentServer(asked, release);
        com.sun.net.httpserver.HttpServer silentAgain = silentServer(askedAgain, release);
        Process first = null;
        Process second = null;
        try {
            // a folder the run creates: removed again
            Path fresh = tmp.resolve("new").resolve("run");
            // a folder with an earlier run, --overwrite: all of it kept
            Path kept = tmp.resolve("kept");
            Files.createDirectories(kept.resolve("concurrency_1"));
            Files.writeString(kept.resolve("m_550_50_summary.json"), "{\"earlier\": true}\n");
            Files.writeString(kept.resolve("concurrency_1").resolve("requests.jsonl"), "{\"r\": 1}\n");
            Files.writeString(kept.resolve(".llmperf4j-files"), "m_550_50_summary.json\nconcurrency_1/requests.jsonl\n");
            java.util.Map<String, String> before = contents(kept);
            first = start("token-benchmark", baseUrl(silent), fresh, tmp.resolve("stderr-new.txt"), false);
            second = start("token-benchmark", baseUrl(silentAgain), kept, tmp.resolve("stderr-kept.txt"), true);

            assertTrue(asked.await(60, TimeUnit.SECONDS), "the pre-run check never came");
            Signals.send(first, signal);
            assertTrue(askedAgain.await(60, TimeUnit.SECONDS), "the pre-run check never came");
            Signals.send(second, signal);

            assertTrue(first.waitFor(60, TimeUnit.SECONDS), "process did not stop after SIG" + signal);
            String stderr = readIfExists(tmp.resolve("stderr-new.txt").toFile());
            assertEquals(ExitCodes.INTERRUPTED, first.exitValue(), stderr);
            assertEquals(1, stderr.lines().filter(l -> l.contains("interrupted before the measurement: nothing "
                    + "recorded")).count(), stderr);
            assertTrue(!Files.exists(tmp.resolve("new")), "the folders the run created are gone: " + stderr);

            assertTrue(second.waitFor(60, TimeUnit.SECONDS), "process did not stop after SIG" + signal);
            String keptStderr = readIfExists(tmp.resolve("stderr-kept.txt").toFile());
            assertEquals(ExitCodes.INTERRUPTED, second.exitValue(), keptStderr);
            assertTrue(keptStderr.contains("interrupted before the measurement: nothing recorded"), keptStderr);
            assertEquals(before, contents(kept), "every earlier file kept, the lock file gone: " + keptStderr);
        } finally {
            if (first != null) first.destroyForcibly();
            if (second != null) second.destroyForcibly();
            release.countDown();
            silent.stop(0);
            silentAgain.stop(0);
        }
    }

    /** A server on 127.0.0.1 that counts {@code asked} down on a request and never answers it before {@code release}. */
    private static com.sun.net.httpserver.HttpServer silentServer(java.util.concurrent.CountDownLatch asked,
            java.util.concurrent.CountDownLatch release) throws IOException {
        com.sun.net.httpserver.HttpServer silent = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        silent.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        silent.createContext("/", exchange -> {
            asked.countDown();
            try {
                release.await(); // never answers while the test runs
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
        });
        silent.start();
        return silent;
    }

    private static String baseUrl(com.sun.net.httpserver.HttpServer server) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    /**
     * The embeddings benchmark and correctness alike: a signal while their pre-run check waits for the endpoint's
     * port (--wait-for-server; embeddings loaded its tokenizer before) ends the run with the same one line, exit 130,
     * the lock released, a folder the run created removed, and with --overwrite every earlier file kept. The two
     * runs go side by side.
     */
    @ParameterizedTest
    @CsvSource({"embeddings,TERM", "embeddings,INT", "correctness,TERM", "correctness,INT"})
    void aSignalBeforeTheMeasurementOfEmbeddingsOrCorrectnessEndsTheRunWithOneLineAndNothingRemoved(String command,
            String signal, @TempDir Path tmp) throws Exception {
        Assumptions.assumeFalse(signal.equals("INT") && Signals.sigintIgnoredHere(), "SIGINT is ignored in this process tree");
        String base = "http://127.0.0.1:" + ClosedPort.find() + "/v1"; // nothing listens: the check waits

        Path fresh = tmp.resolve("new").resolve("run");
        Path freshErr = tmp.resolve("stderr-new.txt");
        Path kept = tmp.resolve("kept");
        Files.createDirectories(kept);
        Files.writeString(kept.resolve("m_correctness_summary.json"), "{\"earlier\": true}\n");
        Files.writeString(kept.resolve(".llmperf4j-files"), "m_correctness_summary.json\n");
        java.util.Map<String, String> before = contents(kept);
        Path keptErr = tmp.resolve("stderr-kept.txt");
        Process first = start(command, base, fresh, freshErr, false, "--wait-for-server", "120");
        Process second = null;
        try {
            second = start(command, base, kept, keptErr, true, "--wait-for-server", "120");
            awaitStderr(freshErr, "waiting up to 120 s for 127.0.0.1:", first);
            assertTrue(Files.exists(fresh.resolve(".llmperf4j.lock")), "the run holds its folder while it waits");
            Signals.send(first, signal);
            awaitStderr(keptErr, "waiting up to 120 s for 127.0.0.1:", second);
            Signals.send(second, signal);

            assertTrue(first.waitFor(60, TimeUnit.SECONDS), "process did not stop after SIG" + signal);
            String stderr = readIfExists(freshErr.toFile());
            assertEquals(ExitCodes.INTERRUPTED, first.exitValue(), stderr);
            assertEquals(1, stderr.lines().filter(l -> l.equals("llmperf4j: " + signal + " received: interrupted "
                    + "before the measurement: nothing recorded")).count(), stderr);
            assertTrue(!Files.exists(tmp.resolve("new")), "the folders the run created are gone: " + stderr);

            assertTrue(second.waitFor(60, TimeUnit.SECONDS), "process did not stop after SIG" + signal);
            String keptStderr = readIfExists(keptErr.toFile());
            assertEquals(ExitCodes.INTERRUPTED, second.exitValue(), keptStderr);
            assertTrue(keptStderr.contains("interrupted before the measurement: nothing recorded"), keptStderr);
            assertEquals(before, contents(kept), "every earlier file kept, the lock file gone: " + keptStderr);
        } finally {
            first.destroyForcibly();
            if (second != null) second.destroyForcibly();
        }
    }

    private static void awaitStderr(Path stderr, String text, Process process) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (process.isAlive() && System.nanoTime() < deadline && !readIfExists(stderr.toFile()).contains(text)) {
            Thread.sleep(20);
        }
        assertTrue(readIfExists(stderr.toFile()).contains(text), "no '" + text + "'; alive " + process.isAlive()
                + ": " + readIfExists(stderr.toFile()));
    }

    /** A signal during the client warm-up (announced on stderr): the same one line, exit 130, nothing left. */
    @org.junit.jupiter.api.Test
    void aSignalDuringTheClientWarmupEndsTheRunWithOneLine(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("run");
        Path stderrFile = tmp.resolve("stderr.txt");
        // a sweep: the full warm-up, seconds long
        ProcessBuilder builder = new ProcessBuilder(ChildJvm.command("token-benchmark", "--model", "m", "--concurrency-sweep", "1,2",
                "--max-num-completed-requests", "2", "--mean-output-tokens", "5", "--stddev-output-tokens", "0",
                "--results-dir", dir.toString())).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(stderrFile.toFile());
        builder.environment().put("OPENAI_API_BASE", server.baseUrl());
        builder.environment().put("OPENAI_API_KEY", "k");
        Process process = builder.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (process.isAlive() && System.nanoTime() < deadline
                    && !readIfExists(stderrFile.toFile()).contains("client warm-up: up to ")) {
                Thread.sleep(20);
            }
            Signals.send(process, "TERM");
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "process did not stop");
            String stderr = readIfExists(stderrFile.toFile());
            assertEquals(ExitCodes.INTERRUPTED, process.exitValue(), stderr);
            assertTrue(stderr.contains("llmperf4j: client warm-up: up to 14 s"), stderr);
            assertTrue(stderr.contains("TERM received: interrupted before the measurement: nothing recorded"), stderr);
            assertTrue(!Files.exists(dir), "the folder the run created is gone: " + stderr);
        } finally {
            process.destroyForcibly();
        }
    }

    /** {@code which}: token-benchmark, embeddings (token-benchmark --llm-api embeddings) or correctness. */
    private static Process start(String which, String base, Path dir, Path stderr, boolean overwrite,
                                 String... extra) throws IOException {
        List<String> command = ChildJvm.command();
        command.addAll(switch (which) {
            case "token-benchmark" -> List.of("token-benchmark", "--no-client-warmup", "--model", "m",
                    "--max-num-completed-requests", "4", "--mean-output-tokens", "50", "--stddev-output-tokens", "0");
            case "embeddings" -> List.of("token-benchmark", "--llm-api", "embeddings", "--model", "m",
                    "--max-num-completed-requests", "4");
            case "correctness" -> List.of("correctness", "--model", "m", "--max-num-completed-requests", "4");
            default -> throw new IllegalArgumentException(which);
        });
        command.addAll(List.of("--results-dir", dir.toString()));
        command.addAll(List.of(extra));
        if (overwrite) command.add("--overwrite");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(stderr.toFile());
        builder.environment().put("OPENAI_API_BASE", base);
        builder.environment().put("OPENAI_API_KEY", "k");
        return builder.start();
    }

    private static java.util.Map<String, String> contents(Path dir) throws IOException {
        java.util.Map<String, String> files = new java.util.TreeMap<>();
        try (var walk = Files.walk(dir)) {
            for (Path file : walk.filter(Files::isRegularFile).toList()) {
                files.put(dir.relativize(file).toString(), Files.readString(file));
            }
        }
        return files;
    }

    private static Process startBenchmark(Path dir) throws IOException {
        // the client's warm-up is seconds of a cold JVM's CPU, and the signal comes after it anyway
        List<String> command = ChildJvm.command("token-benchmark", "--no-client-warmup", "--model", "m",
                "--max-num-completed-requests", "40",
                "--num-concurrent-requests", "4", "--mean-output-tokens", "50", "--stddev-output-tokens", "0",
                "--results-dir", dir.toString());
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("OPENAI_API_BASE", server.baseUrl());
        builder.environment().put("OPENAI_API_KEY", "k");
        builder.redirectError(dir.resolve("stderr.txt").toFile());
        return builder.start();
    }

    private static void waitForLines(Path file, int lines, Process process) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline && process.isAlive()) {
            if (Files.exists(file) && Files.readAllLines(file).size() >= lines) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no " + lines + " journal lines in time; process alive: " + process.isAlive()
                + ", stderr: " + readIfExists(file.resolveSibling("stderr.txt").toFile()));
    }

    private static String readIfExists(File file) throws IOException {
        return file.exists() ? Files.readString(file.toPath()) : "";
    }
}

package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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

    // 50 tokens at 20 ms: each request takes about a second, so the run is mid-way when the signal comes
    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(5))
            .interTokenDelay(Duration.ofMillis(20)));

    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    void aSignalMidRunWritesEveryCompletedRequest(String signal, @TempDir Path dir) throws Exception {
        // a shell starts background jobs with SIGINT ignored, and children inherit that: then no Ctrl-C can arrive
        Assumptions.assumeFalse(signal.equals("INT") && sigintIgnoredHere(), "SIGINT is ignored in this process tree");
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
            List<String> csv = Files.readAllLines(dir.resolve("m_550_50_requests.csv"));
            assertEquals(individual.size() + 1, csv.size());
        } finally {
            process.destroyForcibly();
        }
    }

    /** Bit 2 (SIGINT) of the SigIgn mask in /proc/self/status. */
    private static boolean sigintIgnoredHere() throws IOException {
        Path status = Path.of("/proc/self/status");
        if (!Files.exists(status)) {
            return false;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("SigIgn:")) {
                long mask = Long.parseUnsignedLong(line.substring("SigIgn:".length()).strip(), 16);
                return (mask & (1L << 1)) != 0;
            }
        }
        return false;
    }

    private static Process startBenchmark(Path dir) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        // the client's warm-up is seconds of a cold JVM's CPU, and the signal comes after it anyway
        List<String> command = new ArrayList<>(List.of(java, "-XX:TieredStopAtLevel=1", "-cp", classpath,
                Main.class.getName(), "token-benchmark", "--no-client-warmup", "--model", "m",
                "--max-num-completed-requests", "40",
                "--num-concurrent-requests", "4", "--mean-output-tokens", "50", "--stddev-output-tokens", "0",
                "--results-dir", dir.toString()));
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

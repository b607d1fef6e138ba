package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Signals during a sweep, sent to a real llmperf4j process: Ctrl-C (SIGINT) during a level aborts that level and the
 * sweep goes on; the first during the next level aborts that one too; one more right after stops the sweep, and
 * every file is still written. SIGTERM (a scheduler's, CI's, timeout's) stops the whole sweep at once.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SweepInterruptTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    // 50 tokens at 20 ms: a request takes about a second, so a level is mid-way when a signal comes
    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(5))
            .interTokenDelay(Duration.ofMillis(20)));

    @Test
    void firstSignalAbortsTheLevelAndAnotherStopsTheSweep(@TempDir Path dir) throws Exception {
        Assumptions.assumeFalse(Signals.sigintIgnoredHere(), "SIGINT is ignored in this process tree");
        Process process = start(dir);
        Path stderr = dir.resolve("stderr.txt");
        try {
            waitFor(() -> lines(dir.resolve("concurrency_1").resolve("requests.jsonl")) >= 1, process, stderr);
            Signals.send(process, "INT");
            waitFor(() -> count(stderr, "aborting this level") == 1
                    && lines(dir.resolve("concurrency_2").resolve("requests.jsonl")) >= 1, process, stderr);
            Signals.send(process, "INT"); // level 2's first: aborts it too; the sweep would go on after the 2 s pause
            waitFor(() -> count(stderr, "aborting this level") == 2, process, stderr);
            Signals.send(process, "INT"); // during level 2's end or the pause: stops the sweep
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the sweep did not stop");
            String err = Files.readString(stderr);
            assertEquals(ExitCodes.INTERRUPTED, process.exitValue(), err);
            assertTrue(err.contains("received: stopping, cancelling requests in flight and writing"), err);
            assertTrue(err.contains("Ctrl-C again during this level or between levels stops everything"), err);
            assertFalse(err.contains("again to stop everything and write the results"), err);

            JsonNode sweep = JSON.readTree(dir.resolve("m_550_50_sweep.json").toFile());
            assertTrue(sweep.get("stopped").asBoolean(), sweep::toString);
            assertEquals(2, sweep.get("levels").size(), sweep::toString);
            for (JsonNode level : sweep.get("levels")) {
                assertTrue(level.get("aborted").asBoolean(), level::toString);
                assertTrue(level.get("failures").asInt() >= 1, "the cancelled request counts: " + level);
                assertTrue(level.get("total").asInt() < 12, level::toString);
            }
            assertEquals(3, Files.readAllLines(dir.resolve("m_550_50_sweep.csv")).size(), "header and 2 levels");
            for (String level : List.of("concurrency_1", "concurrency_2")) {
                JsonNode individual = JSON.readTree(dir.resolve(level).resolve("m_550_50_individual_responses.json")
                        .toFile());
                assertEquals(lines(dir.resolve(level).resolve("requests.jsonl")), individual.size(), level);
                JsonNode summary = JSON.readTree(dir.resolve(level).resolve("m_550_50_llmperf4j_summary.json")
                        .toFile());
                assertEquals("SIGINT", summary.get("run").path("stopped_by").asText(), level);
            }
            assertFalse(Files.exists(dir.resolve("concurrency_4")), "no level starts after the stop");
            assertTrue(Files.exists(dir.resolve("m_550_50_report.html")));
        } finally {
            process.destroyForcibly();
        }
    }

    /** One SIGTERM during the first level ends the whole sweep: no other level starts, every file written, 130. */
    @Test
    void sigtermStopsTheWholeSweep(@TempDir Path dir) throws Exception {
        Process process = start(dir);
        Path stderr = dir.resolve("stderr.txt");
        try {
            waitFor(() -> lines(dir.resolve("concurrency_1").resolve("requests.jsonl")) >= 1, process, stderr);
            Signals.send(process, "TERM");
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the sweep did not stop after one SIGTERM");
            String err = Files.readString(stderr);
            assertEquals(ExitCodes.INTERRUPTED, process.exitValue(), err);
            assertEquals(0, count(stderr, "aborting this level"), err);
            assertTrue(err.contains("TERM received: stopping, cancelling requests in flight and writing"), err);

            JsonNode sweep = JSON.readTree(dir.resolve("m_550_50_sweep.json").toFile());
            assertTrue(sweep.get("stopped").asBoolean(), sweep::toString);
            assertEquals(1, sweep.get("levels").size(), sweep::toString);
            assertTrue(sweep.get("levels").get(0).get("aborted").asBoolean(), sweep::toString);
            assertFalse(Files.exists(dir.resolve("concurrency_2")), "no level starts after SIGTERM");
            // the console names no Ctrl-C it did not get (QA: 'aborted: concurrency 2 (Ctrl-C)' after a SIGTERM)
            String out = Files.readString(dir.resolve("stdout.txt"));
            assertTrue(out.contains("aborted: concurrency 1 (stopped by a signal: Ctrl-C or SIGTERM): "), out);
            JsonNode summary = JSON.readTree(dir.resolve("concurrency_1").resolve("m_550_50_llmperf4j_summary.json")
                    .toFile());
            assertEquals("SIGTERM", summary.get("run").path("stopped_by").asText(), summary::toString);
            assertTrue(Files.exists(dir.resolve("m_550_50_report.html")));
        } finally {
            process.destroyForcibly();
        }
    }

    private static Process start(Path dir) throws IOException {
        // the client's warm-up is seconds of a cold JVM's CPU, and the signals come after it anyway
        List<String> command = ChildJvm.command("token-benchmark", "--no-client-warmup", "--model", "m",
                "--concurrency-sweep", "1,2,4", "--max-num-completed-requests",
                "12", "--mean-output-tokens", "50", "--stddev-output-tokens", "0", "--sleep-between", "2",
                "--results-dir", dir.toString());
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(dir.resolve("stdout.txt").toFile());
        builder.environment().put("OPENAI_API_BASE", server.baseUrl());
        builder.environment().put("OPENAI_API_KEY", "k");
        builder.redirectError(dir.resolve("stderr.txt").toFile());
        return builder.start();
    }

    @FunctionalInterface
    private interface Condition {
        boolean holds() throws IOException;
    }

    private static void waitFor(Condition condition, Process process, Path stderr) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline && process.isAlive()) {
            if (condition.holds()) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("condition not reached; process alive: " + process.isAlive() + ", stderr: "
                + (Files.exists(stderr) ? Files.readString(stderr) : ""));
    }

    private static int lines(Path file) throws IOException {
        return Files.exists(file) ? Files.readAllLines(file).size() : 0;
    }

    private static int count(Path file, String text) throws IOException {
        if (!Files.exists(file)) {
            return 0;
        }
        String s = Files.readString(file);
        int n = 0;
        for (int i = s.indexOf(text); i >= 0; i = s.indexOf(text, i + 1)) {
            n++;
        }
        return n;
    }
}

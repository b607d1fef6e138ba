package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * compare with a side a real signal cut short: a child llmperf4j process is sent SIGTERM mid-run (as a scheduler
 * would; a shell's background jobs ignore SIGINT), and compare says on stderr which side was stopped, by what, after
 * how many of its planned requests, and that its latencies leave out the cancelled requests; its cancelled requests
 * are named as not the server's beside the error rate, and a gate ({@code --fail-if}) fails on it (exit 3) unless
 * {@code --allow-incomplete}. Two complete runs get no such line and pass the same gate.
 */
class CompareStoppedRunTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    // 50 tokens at 10 ms: each request takes about half a second, the candidate's 40 at concurrency 4 some 5 s, so
    // the run is mid-way when the signal comes (after its first 4 records), with requests in flight
    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(5))
            .interTokenDelay(Duration.ofMillis(10)));

    @Test
    void aCandidateStoppedBySigtermIsNamedWithItsCancelledRequests(@TempDir Path tmp) throws Exception {
        Path full = tmp.resolve("full");
        Path fullAgain = tmp.resolve("full-again");
        for (Path dir : List.of(full, fullAgain)) {
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                    "token-benchmark", "--no-client-warmup", "--model", "m", "--max-num-completed-requests", "8",
                    "--num-concurrent-requests", "4", "--mean-output-tokens", "50", "--stddev-output-tokens", "0",
                    "--results-dir", dir.toString());
            assertEquals(0, run.exitCode(), run::toString);
        }
        Path stopped = tmp.resolve("stopped");
        Files.createDirectories(stopped);
        Process process = startBenchmark(stopped);
        try {
            waitForLines(stopped.resolve("requests.jsonl"), 4, process);
            Signals.send(process, "TERM");
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "process did not stop after SIGTERM");
            assertEquals(ExitCodes.INTERRUPTED, process.exitValue());
        } finally {
            process.destroyForcibly();
        }
        JsonNode summary = JSON.readTree(stopped.resolve("m_550_50_llmperf4j_summary.json").toFile());
        int ok = summary.at("/run/requests_succeeded").asInt();
        int cancelled = summary.at("/errors/by_kind/CANCELLED").asInt();
        assertEquals("SIGTERM", summary.at("/run/stopped_by").asText());
        assertTrue(cancelled > 0, "requests were in flight: " + summary);

        int recorded = summary.at("/run/requests_recorded").asInt();
        CliRun compare = CliRun.of(Map.of(), "compare", full.toString(), stopped.toString());
        assertEquals(0, compare.exitCode(), "without a gate a stopped side is compared and said: " + compare);
        assertTrue(compare.err().contains("compare: the candidate (" + stopped + ") was stopped by SIGTERM after "
                + recorded + " of 40 planned requests (" + ok + " successful, " + cancelled + " cancelled): its "
                + "latencies leave out the cancelled requests, the ones that had run longest"), compare::toString);
        assertTrue(compare.err().contains("differs: planned requests: 8 vs 40"), compare::toString);
        // (a loaded machine may make the baseline warn CLIENT_BOTTLENECK: said too, not the subject here)
        assertFalse(compare.err().contains("the baseline (" + full + ") was stopped"), compare::toString);
        // its cancelled requests are in its error rate, and said not to be the server's
        assertTrue(compare.out().contains("error rate: failures that are not the server's: the candidate's "
                + cancelled + " CANCELLED: cancelled in flight when the run was stopped or reached its time limit, no "
                + "fault of the server's"),
                compare::toString);

        // a gate refuses a stopped side whatever its rules say (it passed with exit 0), unless told to judge it
        CliRun gate = CliRun.of(Map.of(), "compare", full.toString(), stopped.toString(), "--fail-if",
                "error_rate>0.5");
        assertEquals(ExitCodes.THRESHOLD_FAILED, gate.exitCode(), gate::toString);
        assertTrue(gate.out().contains("  pass error_rate>0.5"), gate::toString);
        assertTrue(gate.out().contains("GATE FAILED: 1 side did not run to its end"), gate::toString);
        assertTrue(gate.err().contains("it fails the gate (exit 3) whatever the rules say: --allow-incomplete "
                + "judges it by the rules"), gate::toString);
        CliRun allowed = CliRun.of(Map.of(), "compare", full.toString(), stopped.toString(), "--fail-if",
                "error_rate>0.5", "--allow-incomplete");
        assertEquals(0, allowed.exitCode(), allowed::toString);
        assertTrue(allowed.err().contains("(judged by the rules anyway: --allow-incomplete)"), allowed::toString);
        assertFalse(allowed.out().contains("GATE FAILED"), allowed::toString);

        CliRun reversed = CliRun.of(Map.of(), "compare", stopped.toString(), full.toString());
        assertTrue(reversed.err().contains("compare: the baseline (" + stopped + ") was stopped by SIGTERM"),
                reversed::toString);

        CliRun complete = CliRun.of(Map.of(), "compare", full.toString(), fullAgain.toString());
        assertEquals(0, complete.exitCode(), complete::toString);
        assertFalse(complete.err().contains("stopped by"), complete::toString);
        CliRun completeGate = CliRun.of(Map.of(), "compare", full.toString(), fullAgain.toString(), "--fail-if",
                "error_rate>0.5");
        assertEquals(0, completeGate.exitCode(), completeGate::toString);
    }

    private static Process startBenchmark(Path dir) throws Exception {
        List<String> command = ChildJvm.command("token-benchmark", "--no-client-warmup", "--model", "m",
                "--max-num-completed-requests", "40", "--num-concurrent-requests", "4", "--mean-output-tokens", "50",
                "--stddev-output-tokens", "0", "--results-dir", dir.toString());
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(dir.resolveSibling("stopped-stderr.txt").toFile());
        builder.environment().put("OPENAI_API_BASE", server.baseUrl());
        builder.environment().put("OPENAI_API_KEY", "k");
        return builder.start();
    }

    private static void waitForLines(Path file, int lines, Process process) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline && process.isAlive()) {
            if (Files.exists(file) && Files.readAllLines(file).size() >= lines) return;
            Thread.sleep(50);
        }
        throw new AssertionError("no " + lines + " journal lines in time; process alive: " + process.isAlive());
    }
}

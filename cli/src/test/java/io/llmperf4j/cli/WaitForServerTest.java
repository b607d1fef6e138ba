package io.llmperf4j.cli;

import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * --wait-for-server: a run started before its server waits for it to listen, then runs; a server that never comes is
 * one error line naming the wait.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WaitForServerTest {

    private static CliRun benchmark(Map<String, String> env, String wait, Path dir) {
        return CliRun.of(env, args(wait, dir));
    }

    private static String[] args(String wait, Path dir) {
        return new String[] {"token-benchmark", "--model", "m", "--wait-for-server", wait,
                "--max-num-completed-requests", "3", "--mean-output-tokens", "8", "--stddev-output-tokens", "0",
                "--no-client-warmup", "--results-dir", dir.toString()};
    }

    @Test
    void aRunStartedBeforeItsServerWaitsForItToListen(@TempDir Path dir) throws Exception {
        int port = ClosedPort.find();
        // the run's stderr read while it runs: the server starts once the run says it waits, not after a guess
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CompletableFuture<CliRun> run = CompletableFuture.supplyAsync(() -> {
            try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                 PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
                int code = Main.execute(new CliContext(ClosedPort.env(port), o, e), args("30", dir));
                return new CliRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
            }
        });
        String waiting = "waiting up to 30 s for 127.0.0.1:" + port + " to accept connections";
        while (!err.toString(StandardCharsets.UTF_8).contains(waiting)) {
            assertFalse(run.isDone(), () -> "the run ended before it said it waits: " + run.join());
            Thread.sleep(10); // the class's @Timeout bounds the wait
        }
        try (SimulatedServer late = SimulatedServer.start(SimulatorConfig.builder().port(port)
                .timeToFirstToken(Duration.ofMillis(2)).interTokenDelay(Duration.ofMillis(1)).build())) {
            CliRun done = run.get(50, TimeUnit.SECONDS);
            assertEquals(0, done.exitCode(), done::toString);
            assertTrue(done.err().contains(waiting), done::toString);
            assertTrue(done.err().contains("127.0.0.1:" + port + " accepts connections"), done::toString);
            assertTrue(Files.exists(dir.resolve("m_550_8_summary.json")), done::toString);
        }
    }

    @Test
    void aServerThatNeverListensIsOneLineNamingTheWait(@TempDir Path dir) {
        int port = ClosedPort.find();
        CliRun run = benchmark(ClosedPort.env(port), "1", dir);
        assertEquals(1, run.exitCode(), run::toString);
        List<String> lines = run.err().lines().filter(l -> !l.isBlank()).toList();
        assertEquals(List.of("llmperf4j: waiting up to 1 s for 127.0.0.1:" + port + " to accept connections"),
                lines.subList(0, 1), run::toString);
        assertEquals(2, lines.size(), run::toString);
        assertTrue(lines.get(1).startsWith("llmperf4j: ") && lines.get(1).contains("cannot reach 127.0.0.1:" + port)
                && lines.get(1).contains("waited 1 s (--wait-for-server)"), run::toString);
        assertEquals("", run.out(), run::toString);
        benchmark(ClosedPort.env(port), "-1", dir).assertOneErrorLine(2, "--wait-for-server (-1) must be >= 0");
    }
}

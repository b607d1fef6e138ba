package io.llmperf4j.cli;

import io.llmperf4j.distributed.testing.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Workers started as documented (each naming only the coordinator's address) serve one coordinator after another:
 * the QA's second token-benchmark at the same address waited 120 s for "0 joined", because the workers, left alone
 * by the first, had formed a cluster of their own that the new coordinator (knowing no worker) never merged with.
 */
class SecondCoordinatorTest {
    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(10))
            .interTokenDelay(Duration.ofMillis(1)));

    @Test
    @Timeout(300)
    void aSecondCoordinatorAtTheSameAddressGetsTheWaitingWorkers(@TempDir Path tmp) throws Exception {
        String cluster = "again-" + java.util.UUID.randomUUID();
        int coordinatorPort = LoopbackPorts.next();
        List<Process> workers = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                // as docs/distributed.md says: --member names the coordinator only
                List<String> command = ChildJvm.command(List.of("-Xmx256m"), "worker", "--cluster", cluster, "--bind",
                        "127.0.0.1:" + LoopbackPorts.next(), "--member", "127.0.0.1:" + coordinatorPort,
                        "--no-client-warmup");
                Path log = tmp.resolve("worker-" + i + ".log");
                ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(log.toFile());
                builder.environment().put("OPENAI_API_KEY", "EMPTY");
                workers.add(builder.start());
                logs.add(log);
            }
            Map<String, String> env = Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "EMPTY");
            for (int round = 1; round <= 2; round++) {
                CliRun run = CliRun.of(env, "token-benchmark", "--model", "test", "--mean-input-tokens", "60",
                        "--stddev-input-tokens", "0", "--mean-output-tokens", "5", "--stddev-output-tokens", "0",
                        "--max-num-completed-requests", "4", "--num-concurrent-requests", "2",
                        "--no-client-warmup", "--results-dir", tmp.resolve("run-" + round).toString(),
                        "--cluster", cluster, "--workers", "2", "--bind", "127.0.0.1:" + coordinatorPort,
                        "--worker-wait", "90");
                int r = round;
                assertEquals(0, run.exitCode(), () -> "coordinator " + r + ": " + run + logs(logs));
                assertTrue(run.err().contains("worker 127.0.0.1:"), run::err);
            }
        } finally {
            for (Process p : workers) p.destroyForcibly();
            for (Process p : workers) p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static String logs(List<Path> logs) {
        StringBuilder b = new StringBuilder();
        for (Path log : logs) {
            try {
                b.append("\n--- ").append(log.getFileName()).append('\n').append(Files.readString(log));
            } catch (java.io.IOException e) {
                b.append("\n--- ").append(log).append(": ").append(e);
            }
        }
        return b.toString();
    }
}

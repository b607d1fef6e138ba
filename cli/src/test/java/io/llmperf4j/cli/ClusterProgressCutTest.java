package io.llmperf4j.cli;

import com.hazelcast.core.HazelcastInstance;
import io.llmperf4j.distributed.ClusterNode;
import io.llmperf4j.distributed.ClusterSettings;
import io.llmperf4j.distributed.HostPort;
import io.llmperf4j.distributed.LoadWorker;
import io.llmperf4j.distributed.testing.LoopbackPorts;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A cluster's open loop ({@code token-benchmark --cluster}, one load worker in this JVM, a simulator on 127.0.0.1)
 * cut by {@code --timeout 2} with most of its 40 constant arrivals still to come: the coordinator's progress line,
 * fed records only, ends with the single process's words, "(N arrivals not sent: --timeout ended the schedule)"
 * (it ended "k/40 requests done" with nothing saying why), and the load line says "over 1 worker".
 */
class ClusterProgressCutTest {
    private static final Pattern CUT = Pattern.compile(
            "llmperf4j: (\\d+)/\\1 requests done \\((\\d+) arrivals not sent: --timeout ended the schedule\\), .*");

    @Test
    @Timeout(120)
    void theCoordinatorsLineSaysTheArrivalsNotSent(@TempDir Path tmp) throws Exception {
        String cluster = "test-" + UUID.randomUUID();
        HostPort member = new HostPort("127.0.0.1", LoopbackPorts.next());
        HazelcastInstance worker = ClusterNode.start(new ClusterSettings(cluster, List.of(member), member),
                ClusterNode.WORKER, Map.of(LoadWorker.CONTEXT_KEY, new LoadWorker(api -> "k", line -> { })));
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)).build())) {
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                    "token-benchmark", "--model", "m", "--mean-input-tokens", "40", "--stddev-input-tokens", "0",
                    "--mean-output-tokens", "4", "--stddev-output-tokens", "0", "--request-rate", "4",
                    "--arrival", "constant", "--max-num-completed-requests", "40", "--timeout", "2",
                    "--no-client-warmup", "--no-server-metrics", "--results-dir", tmp.toString(),
                    "--cluster", cluster, "--workers", "1", "--bind", "127.0.0.1:" + LoopbackPorts.next(),
                    "--member", member.toString(), "--worker-wait", "60");
            assertEquals(0, run.exitCode(), run::toString);
            List<String> cut = run.err().lines().filter(l -> CUT.matcher(l).matches()).toList();
            assertEquals(1, cut.size(), run::toString);
            var m = CUT.matcher(cut.get(0));
            assertTrue(m.matches());
            assertEquals(40, Integer.parseInt(m.group(1)) + Integer.parseInt(m.group(2)), cut.get(0));
            assertTrue(run.err().contains(", over 1 worker\n") || run.err().contains(", over 1 worker\r\n"),
                    run::toString);
        } finally {
            worker.shutdown();
        }
    }
}

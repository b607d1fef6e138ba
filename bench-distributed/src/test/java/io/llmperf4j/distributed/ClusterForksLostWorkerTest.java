package io.llmperf4j.distributed;

import io.llmperf4j.distributed.testing.LocalWorkers;
import io.llmperf4j.distributed.testing.LoopbackPorts;
import io.llmperf4j.engine.client.ConnectionMode;
import io.llmperf4j.engine.harness.HarnessListener;
import io.llmperf4j.engine.harness.HarnessResult;
import io.llmperf4j.engine.harness.HarnessRunner;
import io.llmperf4j.engine.harness.HarnessSettings;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.RecordListener;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Harness forks on a cluster that loses a worker after its first fork: the second fork runs on the worker still
 * there, its whole load, and the coordinator's log says it ran without the lost one (before, the lost worker was
 * dealt its share of every later fork, which nobody sent). A coordinator and two workers in this JVM, on 127.0.0.1,
 * against the simulated server; the lost worker's member is terminated, as a crash leaves it.
 */
class ClusterForksLostWorkerTest {

    @Test
    @Timeout(60)
    void aForkAfterAWorkerWasLostRunsOnTheWorkersStillThere() throws Exception {
        List<String> log = new CopyOnWriteArrayList<>();
        String name = "test-" + UUID.randomUUID();
        HostPort c = new HostPort("127.0.0.1", LoopbackPorts.next());
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(10)).interTokenDelay(Duration.ofMillis(1)).build());
             Coordinator coordinator = Coordinator.start(new ClusterSettings(name, List.of(c), c), log::add);
             LocalWorkers workers = LocalWorkers.start(name, c, List.of(api -> "", api -> ""))) {
            List<com.hazelcast.cluster.Member> members = coordinator.awaitWorkers(2, Duration.ofSeconds(60));
            String lost = ClusterNode.idOf(members.get(1));
            String stayed = ClusterNode.idOf(members.get(0));
            int victim = workers.ids().indexOf(lost);
            URI endpoint = URI.create(server.baseUrl() + "/chat/completions");
            ClientSpec client = new ClientSpec(endpoint, "openai", true, "m", Map.of(), true, 8, 60_000, null, 10_000,
                    Map.of(), false, null, ConnectionMode.PRECONNECT);
            List<MergedRun> forks = new ArrayList<>();
            ClusterForks clusterForks = new ClusterForks(coordinator, members, Map.of(), client, 8, text -> 8,
                    fork -> {
                        forks.add(fork);
                        if (forks.size() == 1) loseWorker(workers, victim, coordinator, members);
                    }, startNanos -> RecordListener.NONE);
            HarnessResult result = new HarnessRunner(clusterForks, RequestRecord::outputTokens).run("test", Map.of(),
                    specs(6), new ClosedLoopSettings(4, OptionalInt.empty(), Duration.ofSeconds(30), Warmup.NONE,
                            ClosedLoopSettings.PromptOrder.SEND_ORDER),
                    HarnessSettings.of(0, Duration.ofMillis(300), 1, Duration.ofMillis(300), 2), HarnessListener.NONE);

            assertEquals(2, forks.size());
            assertEquals(Set.of(stayed, lost), workerIds(forks.get(0)), "the first fork ran on both");
            MergedRun second = forks.get(1);
            assertEquals(Set.of(stayed), workerIds(second), "the second fork ran on the worker still there");
            assertEquals(1, second.workers().size(), second.workers()::toString);
            assertEquals(0, second.lost(), second.workers()::toString);
            assertTrue(second.records().stream().anyMatch(RequestRecord::succeeded), second.records()::toString);
            assertTrue(second.records().stream().filter(r -> !r.succeeded())
                    .allMatch(r -> r.failure().kind() == FailureKind.CANCELLED), "only the time limit's cancellations");
            assertFalse(result.aborted());
            assertEquals(2, result.forks().size());
            assertTrue(log.contains("fork 2 runs without worker " + lost + " (it left the cluster in an earlier "
                    + "fork)"), log::toString);
            assertTrue(log.stream().noneMatch(l -> l.startsWith("fork 1 runs without")), log::toString);
        }
    }

    /** Crashes worker {@code i} and waits until the coordinator no longer has it among its members. */
    private static void loseWorker(LocalWorkers workers, int i, Coordinator coordinator,
                                   List<com.hazelcast.cluster.Member> members) {
        workers.crash(i);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (coordinator.stillMembers(members).size() == members.size()) {
            if (System.nanoTime() > deadline) throw new AssertionError("the crashed worker is still a member");
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    private static Set<String> workerIds(MergedRun run) {
        return run.records().stream().map(RequestRecord::workerId).collect(Collectors.toSet());
    }

    private static List<RequestSpec> specs(int n) {
        List<RequestSpec> specs = new ArrayList<>();
        for (int i = 0; i < n; i++) specs.add(new RequestSpec(i, "prompt number " + i, 5, 8));
        return specs;
    }
}

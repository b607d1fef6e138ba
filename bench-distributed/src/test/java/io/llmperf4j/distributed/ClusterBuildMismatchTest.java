package io.llmperf4j.distributed;

import com.hazelcast.cluster.Member;
import io.llmperf4j.distributed.testing.LocalWorkers;
import io.llmperf4j.distributed.testing.LoopbackPorts;
import io.llmperf4j.engine.client.ConnectionMode;
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
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worker of another build joins: the coordinator says which builds met and deals it no share, the worker is told
 * to leave with the same words from its side, and the run goes on with the worker of this build; a count that needed
 * the refused worker stops at once with a clear error instead of waiting out --worker-wait. Members in this JVM on
 * 127.0.0.1; the other build is announced through the members' package-private seam ({@link OtherBuilds}).
 */
class ClusterBuildMismatchTest {

    @Test
    @Timeout(60)
    void aWorkerOfAnotherBuildIsRefusedOnBothSidesAndTheRunGoesOnWithoutIt() throws Exception {
        List<String> log = new CopyOnWriteArrayList<>();
        String name = "test-" + UUID.randomUUID();
        HostPort c = new HostPort("127.0.0.1", LoopbackPorts.next());
        HostPort otherAt = new HostPort("127.0.0.1", LoopbackPorts.next());
        BuildIdentity here = BuildIdentity.current();
        BuildIdentity other = OtherBuilds.build("0.0.9");
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)).build());
             Coordinator coordinator = Coordinator.start(new ClusterSettings(name, List.of(c), c), log::add);
             LocalWorkers workers = LocalWorkers.start(name, c, List.of(api -> ""))) {
            WorkerMember old = OtherBuilds.worker(new ClusterSettings(name, List.of(c), otherAt), other);
            try {
                String refusal = old.refusal().join(); // the worker's side, as it joins
                assertEquals("coordinator " + coordinator.address() + " runs " + here.describe() + ", this worker "
                        + other.describe() + ": refused (start this worker from the coordinator's build)", refusal);
                String said = "worker " + otherAt + " runs llmperf4j 0.0.9 (wire 0ther000), this coordinator "
                        + here.describe() + ": refused (start the worker from the coordinator's build); it is dealt "
                        + "no share";
                awaitLine(log, said);
                assertEquals(1, log.stream().filter(said::equals).count(), log::toString);
                assertTrue(here.wire().matches("[0-9a-f]{8}"), here::toString);

                List<Member> members = coordinator.awaitWorkers(1, Duration.ofSeconds(30));
                assertEquals(workers.ids(), members.stream().map(ClusterNode::idOf).toList());
                // two asked for, one of them of another build: said at once, not after the wait
                DistributedRunException e = assertThrows(DistributedRunException.class,
                        () -> coordinator.awaitWorkers(2, Duration.ofSeconds(600)));
                assertEquals("cluster '" + name + "': 2 workers asked for, 1 joined (" + workers.ids().get(0)
                        + ") and 1 refused, of another build than this coordinator's " + here.describe() + ": "
                        + otherAt + " runs llmperf4j 0.0.9 (wire 0ther000); start every worker from the "
                        + "coordinator's build", e.getMessage());

                URI endpoint = URI.create(server.baseUrl() + "/chat/completions");
                ClientSpec client = new ClientSpec(endpoint, "openai", true, "m", Map.of(), true, 2, 60_000, null,
                        10_000, Map.of(), false, null, ConnectionMode.PRECONNECT);
                MergedRun run = coordinator.run(DistributedPlan.closedLoop(client, specs(4), 2,
                        Duration.ofSeconds(30)), members, Map.of(), text -> 4);
                assertEquals(4, run.records().size(), run.records()::toString);
                assertTrue(run.records().stream().allMatch(RequestRecord::succeeded), run.records()::toString);
                assertEquals(List.of(workers.ids().get(0)),
                        run.records().stream().map(RequestRecord::workerId).distinct().toList());
            } finally {
                old.instance().getLifecycleService().terminate();
            }
        }
    }

    private static void awaitLine(List<String> log, String line) throws InterruptedException {
        while (!log.contains(line)) Thread.sleep(10); // the test's @Timeout bounds it
    }

    private static List<RequestSpec> specs(int n) {
        List<RequestSpec> specs = new ArrayList<>();
        for (int i = 0; i < n; i++) specs.add(new RequestSpec(i, "prompt number " + i, 5, 4));
        return specs;
    }
}

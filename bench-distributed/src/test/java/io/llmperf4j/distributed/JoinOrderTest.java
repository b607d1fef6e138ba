package io.llmperf4j.distributed;

import com.hazelcast.cluster.Member;
import io.llmperf4j.distributed.testing.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Workers started before their coordinator, each alone in a cluster of its own, end in the coordinator's cluster
 * even when the address they name is a member that is not its cluster's master: Hazelcast looks for other clusters
 * only from a master to a master, and such a member answers with its master's address, which a worker keeps for its
 * next look ({@link ClusterNode#WORKER_ADDRESS_RETENTION_SECONDS}; with 0 it was dropped before that look). Members
 * in this JVM on 127.0.0.1; each wait is the coordinator's own, generous, on the members it sees.
 */
class JoinOrderTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    /**
     * The cli's WorkerSigtermTest flake, made certain: two workers up before a coordinator that names them both. The
     * coordinator joined the first worker's cluster, not as its master, and the other worker, naming only the
     * coordinator's address, never found that master: the coordinator waited out its wait for "1 joined".
     */
    @Test
    @Timeout(120)
    void workersUpBeforeACoordinatorThatNamesThemAllJoinIt() throws IOException {
        String name = "order-" + UUID.randomUUID();
        HostPort c = loopback();
        List<HostPort> at = List.of(loopback(), loopback());
        List<WorkerMember> workers = new ArrayList<>();
        try {
            for (HostPort w : at) workers.add(worker(name, w, c));
            for (WorkerMember w : workers) assertEquals(1, w.instance().getCluster().getMembers().size());
            try (Coordinator coordinator = Coordinator.start(new ClusterSettings(name, at, c), line -> { })) {
                assertEquals(addresses(at), ids(coordinator.awaitWorkers(2, WAIT)));
            }
        } finally {
            for (WorkerMember w : workers) w.instance().getLifecycleService().terminate();
        }
    }

    /**
     * A worker naming another worker (docs/distributed.md allows either address), up before it: alone, it looks at
     * the other worker's address, which has since joined a coordinator that is its cluster's master. Before, the
     * worker it named answered with the coordinator's address and the answer was dropped: it never joined.
     */
    @Test
    @Timeout(120)
    void aWorkerNamingAnotherWorkerUpAfterItJoinsThatWorkersCoordinator() throws IOException {
        String name = "order-" + UUID.randomUUID();
        HostPort c = loopback();
        HostPort first = loopback();
        HostPort second = loopback();
        List<WorkerMember> workers = new ArrayList<>();
        try {
            workers.add(worker(name, second, first)); // nobody at its address yet: a cluster of its own
            assertEquals(1, workers.get(0).instance().getCluster().getMembers().size());
            try (Coordinator coordinator = Coordinator.start(new ClusterSettings(name, List.of(), c), line -> { })) {
                workers.add(worker(name, first, c));
                assertEquals(addresses(List.of(first, second)), ids(coordinator.awaitWorkers(2, WAIT)));
            }
        } finally {
            for (WorkerMember w : workers) w.instance().getLifecycleService().terminate();
        }
    }

    private static WorkerMember worker(String cluster, HostPort bind, HostPort member) {
        return WorkerMember.start(new ClusterSettings(cluster, List.of(member), bind),
                new LoadWorker(variable -> "", line -> { }));
    }

    private static HostPort loopback() throws IOException {
        return new HostPort("127.0.0.1", LoopbackPorts.next());
    }

    /** The members' ids, sorted. */
    private static List<String> ids(List<Member> members) {
        return members.stream().map(ClusterNode::idOf).sorted().toList();
    }

    /** The addresses as ids, sorted. */
    private static List<String> addresses(List<HostPort> at) {
        return at.stream().map(HostPort::toString).sorted().toList();
    }
}

package io.llmperf4j.distributed;

import com.hazelcast.core.HazelcastInstance;
import io.llmperf4j.distributed.testing.LoopbackPorts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hazelcast's own lines on stderr: none by default, through a worker's join and crash (its member terminated, as a
 * killed process leaves it: connection refused, "suspected dead", a member-list dump); shown with --debug's gate open.
 * Two members in this JVM on 127.0.0.1; stderr is captured while they run.
 */
class HazelcastLogGateTest {
    private final PrintStream originalErr = System.err;

    @AfterEach
    void restore() {
        System.setErr(originalErr);
        HazelcastLogGate.show(false);
    }

    @Test
    @Timeout(120)
    void aJoinAndALostWorkerLeaveNoLibraryLinesByDefault() throws Exception {
        String err = joinAndLoseAWorker(false);
        assertFalse(err.contains("com.hazelcast"), err);
        assertFalse(err.contains("MembersView"), err);
        assertFalse(err.contains("WARN"), err);
    }

    @Test
    @Timeout(120)
    void debugShowsThem() throws Exception {
        String err = joinAndLoseAWorker(true);
        assertTrue(err.contains("WARN com.hazelcast."), err);
        assertTrue(err.contains("127.0.0.1"), err);
    }

    @Test
    @Timeout(120)
    void aPortTakenIsOneLineOfOursAndNoLibraryLines() throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            HostPort bind = new HostPort("127.0.0.1", taken.getLocalPort());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> ClusterNode.start(
                    new ClusterSettings("test-" + UUID.randomUUID(), List.of(bind), bind), ClusterNode.WORKER,
                    Map.of()));
            assertEquals("cannot bind the cluster port 127.0.0.1:" + taken.getLocalPort()
                    + ": it is in use (another member or program; pick a free port with --bind)", e.getMessage());
        }
        String err = captured.toString(StandardCharsets.UTF_8);
        assertFalse(err.contains("com.hazelcast"), err);
    }

    /** Starts a coordinator member and a worker member, terminates the worker, waits until it is gone: the stderr. */
    private String joinAndLoseAWorker(boolean shown) throws Exception {
        HazelcastLogGate.show(shown);
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        String name = "test-" + UUID.randomUUID();
        List<HostPort> coordinatorOnly = List.of(new HostPort("127.0.0.1", LoopbackPorts.next()));
        HazelcastInstance coordinator = ClusterNode.start(new ClusterSettings(name, coordinatorOnly,
                coordinatorOnly.get(0)), ClusterNode.COORDINATOR, Map.of());
        try {
            HazelcastInstance worker = ClusterNode.start(new ClusterSettings(name, coordinatorOnly,
                    new HostPort("127.0.0.1", LoopbackPorts.next())), ClusterNode.WORKER, Map.of());
            while (coordinator.getCluster().getMembers().size() < 2) Thread.sleep(20);
            worker.getLifecycleService().terminate();
            while (coordinator.getCluster().getMembers().size() > 1) Thread.sleep(20);
        } finally {
            coordinator.getLifecycleService().terminate();
        }
        System.err.flush();
        return captured.toString(StandardCharsets.UTF_8);
    }
}

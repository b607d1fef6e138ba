package io.llmperf4j.distributed.testing;

import com.hazelcast.core.HazelcastInstance;
import io.llmperf4j.distributed.ClusterNode;
import io.llmperf4j.distributed.ClusterSettings;
import io.llmperf4j.distributed.HostPort;
import io.llmperf4j.distributed.LoadWorker;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Load workers as Hazelcast members in this JVM, on 127.0.0.1: the real {@link LoadWorker} of {@code llmperf4j
 * worker}, without a JVM of its own to start and warm (seconds a worker on a loaded machine).
 *
 * <p>Each member names one that is already up (the coordinator given, else the first worker), never an address no
 * one holds yet: a first member that names its peers spends about 2 s trying them before it forms a cluster alone.
 * A coordinator that names every worker joins them at once.
 */
public final class LocalWorkers implements AutoCloseable {
    private final List<HazelcastInstance> members = new ArrayList<>();
    private final List<String> ids = new ArrayList<>();

    private LocalWorkers() {
    }

    /**
     * Starts one worker per entry of {@code keys} (its API-key lookup, by key variable name), joining {@code join}
     * when it is not null (a coordinator already up).
     */
    public static LocalWorkers start(String cluster, HostPort join, List<UnaryOperator<String>> keys)
            throws IOException {
        return start(cluster, join, keys, line -> { });
    }

    /** As {@link #start(String, HostPort, List)}, the workers' log lines to {@code log}. */
    public static LocalWorkers start(String cluster, HostPort join, List<UnaryOperator<String>> keys,
            Consumer<String> log) throws IOException {
        LocalWorkers workers = new LocalWorkers();
        HostPort first = join;
        for (UnaryOperator<String> key : keys) {
            HostPort bind = new HostPort("127.0.0.1", LoopbackPorts.next());
            if (first == null) first = bind;
            workers.members.add(ClusterNode.start(new ClusterSettings(cluster, List.of(first), bind),
                    ClusterNode.WORKER, Map.of(LoadWorker.CONTEXT_KEY, new LoadWorker(key, log))));
            workers.ids.add(bind.toString());
        }
        return workers;
    }

    /** {@code n} workers of a cluster of their own, each sending {@code key}. */
    public static LocalWorkers start(String cluster, int n, String key) throws IOException {
        List<UnaryOperator<String>> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) keys.add(variable -> key);
        return start(cluster, null, keys);
    }

    /** The workers' ids (their cluster addresses, host:port), in the order started: what --member names. */
    public List<String> ids() {
        return List.copyOf(ids);
    }

    public HazelcastInstance member(int i) {
        return members.get(i);
    }

    /**
     * Ends worker {@code i} as a crash does: its member is terminated on a thread of its own, so its connections close
     * and the cluster sees it gone at once, while Hazelcast's terminate() still waits up to 3 s for the member's own
     * tasks (its share) before it returns, which no assertion reads. Its share may run on in this JVM until then,
     * sending to the server, but nothing of it reaches the cluster.
     */
    public CompletableFuture<Void> crash(int i) {
        return terminate(members.get(i));
    }

    /**
     * Terminates every worker still running, each on a thread of its own, without waiting: a master whose
     * {@code --member} names an address no one holds (a worker that left) probes it for a split-brain merge every few
     * seconds, and its shutdown or terminate waits up to 3 s for a probe under way, which no assertion reads (as
     * {@code kill -9} of a worker JVM waits for nothing).
     */
    @Override
    public void close() {
        for (HazelcastInstance member : members) {
            if (member.getLifecycleService().isRunning()) terminate(member);
        }
    }

    /** Terminates {@code member} on a daemon thread of its own, whatever the machine's pool sizes. */
    private static CompletableFuture<Void> terminate(HazelcastInstance member) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                member.getLifecycleService().terminate();
                done.complete(null);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        }, "local-worker-terminate");
        t.setDaemon(true);
        t.start();
        return done;
    }
}

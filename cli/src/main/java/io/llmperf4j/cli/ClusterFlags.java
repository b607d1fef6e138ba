package io.llmperf4j.cli;

import io.llmperf4j.distributed.ClusterSettings;
import io.llmperf4j.distributed.HostPort;
import io.llmperf4j.run.ClusterPlan;
import picocli.CommandLine.Help;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * token-benchmark's cluster flags: with {@code --cluster}, this process becomes the coordinator of a distributed
 * run and the requests are sent by {@code llmperf4j worker} processes (see {@link DistributedTokenBenchmark}).
 */
final class ClusterFlags {
    static final int DEFAULT_WORKER_WAIT_SECONDS = 120;

    @Option(names = "--cluster", paramLabel = "NAME",
            description = "Distribute the load: coordinate the workers of this Hazelcast cluster "
                    + "(started with 'llmperf4j worker --cluster NAME'); they send the requests, this process "
                    + "merges their records and writes the usual files.")
    String cluster;

    @Option(names = "--workers", paramLabel = "N",
            description = "With --cluster: wait for N workers and split the concurrency (or request "
                    + "rate) and the requests between them.")
    Integer workers;

    @Option(names = "--member", paramLabel = "HOST:PORT", showDefaultValue = Help.Visibility.NEVER,
            description = "With --cluster: a cluster member to contact (repeatable); workers that "
                    + "name this process in their --member need none.")
    List<String> members = new ArrayList<>();

    @Option(names = "--bind", paramLabel = "HOST[:PORT]",
            description = "With --cluster: the address cluster traffic binds to and is announced at "
                    + "(default: every interface, the first free port from 5701).")
    String bind;

    @Option(names = "--worker-wait", paramLabel = "SECONDS",
            description = "With --cluster: how long to wait for the workers to join. Default: "
                    + DEFAULT_WORKER_WAIT_SECONDS + ".")
    Integer workerWaitSeconds;

    /** The cluster flags after validation, or null without --cluster. */
    ClusterPlan resolve() {
        if (cluster == null) {
            String stray = workers != null ? "--workers" : !members.isEmpty() ? "--member" : bind != null ? "--bind"
                    : workerWaitSeconds != null ? "--worker-wait" : null;
            if (stray != null) {
                throw new UsageException(stray + " needs --cluster NAME");
            }
            return null;
        }
        if (workers == null) {
            throw new UsageException("--cluster needs --workers N: how many workers to wait for");
        }
        CommonOptions.atLeast("--workers", workers, 1);
        int wait = workerWaitSeconds == null ? DEFAULT_WORKER_WAIT_SECONDS : workerWaitSeconds;
        CommonOptions.atLeast("--worker-wait", wait, 1);
        return new ClusterPlan(settings(cluster, members, bind), workers, Duration.ofSeconds(wait));
    }

    /** The cluster to join, shared by token-benchmark and worker. */
    static ClusterSettings settings(String cluster, List<String> members, String bind) {
        if (cluster.isBlank()) {
            throw new UsageException("--cluster needs a name");
        }
        List<HostPort> contacts = new ArrayList<>();
        for (String m : members) {
            contacts.add(address("--member", m));
        }
        return new ClusterSettings(cluster.strip(), contacts, bind == null ? null : address("--bind", bind));
    }

    private static HostPort address(String option, String text) {
        try {
            return HostPort.parse(text);
        } catch (IllegalArgumentException e) {
            throw new UsageException(option + ": " + e.getMessage());
        }
    }
}

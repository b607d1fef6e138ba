package io.llmperf4j.distributed;

import com.hazelcast.cluster.Member;
import io.llmperf4j.engine.client.HeaderWait;
import io.llmperf4j.engine.harness.ForkRunner;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.LoadResult;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.RecordListener;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * Harness forks run by the workers of a cluster: each fork is one distributed run of the fork's continuous load
 * (a closed loop's slots or an open loop's rate split between the workers, one shared start), so its iteration
 * windows are cut from the merged timeline exactly as a single machine's. Every worker's share builds a new client,
 * so each fork has fresh connection pools, as on one machine. Each fork's records feed its progress as the workers
 * stream them, as a plain distributed level's do; the listener hears them all once the fork is merged. A worker lost
 * in one fork is dealt no share of the later ones (nobody would send it): they run on the workers still there, and
 * the coordinator's log says so, as a sweep's later levels do.
 */
public final class ClusterForks implements ForkRunner {
    private final Coordinator coordinator;
    private final List<Member> workers;
    private final Map<String, ClockOffset> clocks;
    private final ClientSpec client;
    private final int openLoopMaxConnections;
    private final TokenCounter outputTokens;
    private final Consumer<MergedRun> afterFork;
    private final LongFunction<RecordListener> liveProgress;
    private final Consumer<Supplier<HeaderWait>> silentServer;
    private volatile boolean stopped;
    private int forks;

    /**
     * @param client                 how workers reach the endpoint; a closed loop caps its connections at its slots
     * @param openLoopMaxConnections an open loop's connection cap (split between the workers)
     * @param outputTokens           counts each record's output tokens here, on the coordinator
     * @param afterFork              told about each fork's merged run (its workers' reports)
     * @param liveProgress           given each fork's shared start instant ({@link System#nanoTime()}), where to
     *                               tell each record a worker streams as it ends (the fork's progress line; another
     *                               thread), as a plain distributed level does ({@link Coordinator.Live#feeding})
     */
    public ClusterForks(Coordinator coordinator, List<Member> workers, Map<String, ClockOffset> clocks,
                        ClientSpec client, int openLoopMaxConnections, TokenCounter outputTokens,
                        Consumer<MergedRun> afterFork, LongFunction<RecordListener> liveProgress) {
        this(coordinator, workers, clocks, client, openLoopMaxConnections, outputTokens, afterFork, liveProgress,
                waits -> { });
    }

    /**
     * As above, {@code silentServer} given each fork's workers' requests waiting for their response headers at its
     * start ({@link Coordinator.Live#headerWaits}), for the fork's progress line.
     */
    public ClusterForks(Coordinator coordinator, List<Member> workers, Map<String, ClockOffset> clocks,
                        ClientSpec client, int openLoopMaxConnections, TokenCounter outputTokens,
                        Consumer<MergedRun> afterFork, LongFunction<RecordListener> liveProgress,
                        Consumer<Supplier<HeaderWait>> silentServer) {
        this.coordinator = Objects.requireNonNull(coordinator, "coordinator");
        this.workers = List.copyOf(workers);
        this.clocks = Map.copyOf(clocks);
        this.client = Objects.requireNonNull(client, "client");
        this.openLoopMaxConnections = openLoopMaxConnections;
        this.outputTokens = Objects.requireNonNull(outputTokens, "outputTokens");
        this.afterFork = Objects.requireNonNull(afterFork, "afterFork");
        this.liveProgress = Objects.requireNonNull(liveProgress, "liveProgress");
        this.silentServer = Objects.requireNonNull(silentServer, "silentServer");
    }

    @Override
    public LoadResult run(List<RequestSpec> specs, LoadSettings forkLoad, RecordListener listener) {
        DistributedPlan plan;
        if (forkLoad instanceof ClosedLoopSettings c) {
            plan = DistributedPlan.continuousClosedLoop(client.withMaxConnections(c.concurrency()), specs,
                    c.concurrency(), c.timeout());
        } else {
            plan = DistributedPlan.openLoop(client.withMaxConnections(openLoopMaxConnections), specs,
                    (OpenLoopSettings) forkLoad);
        }
        forks++;
        List<Member> present = coordinator.stillMembersForFork(workers, forks);
        if (present.isEmpty()) {
            throw new DistributedRunException("every load worker left the cluster before fork " + forks
                    + ": the forks cannot go on");
        }
        MergedRun merged = coordinator.run(plan, present, clocks, outputTokens, () -> stopped,
                Coordinator.Live.feeding(liveProgress, silentServer));
        for (ScheduledRecord r : merged.timeline()) {
            listener.onRecord(r.record());
            listener.onScheduledRecord(r);
        }
        afterFork.accept(merged);
        return merged.result(forkLoad);
    }

    @Override
    public void stop() {
        stopped = true;
        coordinator.stop();
    }
}

package io.llmperf4j.distributed;

import com.hazelcast.core.HazelcastInstance;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A load worker's member of the cluster ({@code llmperf4j worker}).
 *
 * @param instance the member
 * @param refusal  completed with one line when a coordinator of another build joins (or was there): the worker
 *                 cannot serve it and should leave ({@link BuildCheck})
 */
public record WorkerMember(HazelcastInstance instance, CompletableFuture<String> refusal) {

    /** Joins (or founds) the cluster as a worker running {@code worker}'s shares. */
    public static WorkerMember start(ClusterSettings settings, LoadWorker worker) {
        return start(settings, worker, BuildIdentity.current());
    }

    /** As {@link #start(ClusterSettings, LoadWorker)}, announcing {@code build}: tests give another build's. */
    static WorkerMember start(ClusterSettings settings, LoadWorker worker, BuildIdentity build) {
        BuildCheck check = new BuildCheck(build, ClusterNode.WORKER, line -> { });
        HazelcastInstance instance = ClusterNode.start(settings, ClusterNode.WORKER,
                Map.of(LoadWorker.CONTEXT_KEY, worker), build, check);
        return new WorkerMember(instance, check.refusedCoordinator());
    }
}

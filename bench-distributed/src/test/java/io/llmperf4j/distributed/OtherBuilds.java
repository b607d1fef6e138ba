package io.llmperf4j.distributed;

import java.util.function.Consumer;

/**
 * Members that announce another build than this one's (a worker or coordinator started from another llmperf4j),
 * for the version-mismatch tests here and in the cli (a test-jar class, in this package for the seams).
 */
public final class OtherBuilds {
    private OtherBuilds() {
    }

    /** Another build: {@code version}, with a wire fingerprint no real build has. */
    public static BuildIdentity build(String version) {
        return new BuildIdentity(version, "0ther000");
    }

    /** A coordinator of build {@code build}. */
    public static Coordinator coordinator(ClusterSettings settings, Consumer<String> log, BuildIdentity build) {
        return Coordinator.start(settings, log, build);
    }

    /** A worker of build {@code build}, with no API key. */
    public static WorkerMember worker(ClusterSettings settings, BuildIdentity build) {
        return WorkerMember.start(settings, new LoadWorker(api -> "", line -> { }), build);
    }
}

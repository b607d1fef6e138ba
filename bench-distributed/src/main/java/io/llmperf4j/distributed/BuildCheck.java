package io.llmperf4j.distributed;

import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.InitialMembershipEvent;
import com.hazelcast.cluster.InitialMembershipListener;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Pairs a member only with the other side's members of its own build ({@link BuildIdentity}): a coordinator refuses
 * workers of another build (they are dealt no share), a worker refuses a coordinator of another build (it leaves the
 * cluster, and its command exits non-zero). Each side says so once per member, naming both builds. Registered before
 * the member joins, so a member that leaves at once (a refused worker does) is still seen.
 */
final class BuildCheck implements InitialMembershipListener {
    private final BuildIdentity self;
    private final String role;
    private final Consumer<String> log;
    /** The other side's members of another build, by UUID, in the order they were seen. */
    private final Map<UUID, Refused> refused = new LinkedHashMap<>();
    private final CompletableFuture<String> refusedCoordinator = new CompletableFuture<>();

    /** A member of the other side that runs another build. */
    record Refused(String id, BuildIdentity build) {
    }

    /**
     * @param self this member's build
     * @param role this member's role: {@link ClusterNode#COORDINATOR} watches workers, {@link ClusterNode#WORKER}
     *             coordinators
     * @param log  where each refusal is said, once
     */
    BuildCheck(BuildIdentity self, String role, Consumer<String> log) {
        this.self = self;
        this.role = role;
        this.log = log;
    }

    @Override
    public void init(InitialMembershipEvent event) {
        for (Member m : event.getMembers()) check(m);
    }

    @Override
    public void memberAdded(MembershipEvent event) {
        check(event.getMember());
    }

    @Override
    public void memberRemoved(MembershipEvent event) {
    }

    /** This member's build. */
    BuildIdentity self() {
        return self;
    }

    /** Whether {@code member} runs this member's build. */
    boolean sameBuild(Member member) {
        return self.equals(BuildIdentity.of(member));
    }

    /** The workers refused so far (a coordinator's), in the order seen, whether still members or not. */
    synchronized List<Refused> refused() {
        return List.copyOf(refused.values());
    }

    /** Completed with the refusal's line when a coordinator of another build is seen (a worker's). */
    CompletableFuture<String> refusedCoordinator() {
        return refusedCoordinator;
    }

    private void check(Member member) {
        if (member.localMember() || sameBuild(member)) return;
        boolean coordinator = ClusterNode.COORDINATOR.equals(role);
        String watched = coordinator ? ClusterNode.WORKER : ClusterNode.COORDINATOR;
        if (!watched.equals(member.getAttribute(ClusterNode.ROLE))) return;
        BuildIdentity other = BuildIdentity.of(member);
        String id = ClusterNode.idOf(member);
        synchronized (this) {
            if (refused.putIfAbsent(member.getUuid(), new Refused(id, other)) != null) return;
        }
        String line = watched + " " + id + " runs " + other.describe() + ", this " + role + " "
                + self.describe() + ": refused (start " + (coordinator ? "the worker from the coordinator's build"
                : "this worker from the coordinator's build") + ")";
        if (coordinator) {
            log.accept(line + "; it is dealt no share");
        } else {
            refusedCoordinator.complete(line);
        }
    }
}

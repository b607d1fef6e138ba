package io.llmperf4j.cli;

import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.run.ClientWarmup;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent;
import io.llmperf4j.distributed.ClusterNode;
import io.llmperf4j.distributed.ClusterSettings;
import io.llmperf4j.distributed.LoadWorker;
import io.llmperf4j.distributed.WorkerMember;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/** {@code llmperf4j worker}: a load worker of a distributed token benchmark, until interrupted. */
@Command(name = "worker",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        showDefaultValues = true,
        headerHeading = "",
        header = "A load worker for a distributed token benchmark (token-benchmark --cluster).",
        description = {
            "Joins the Hazelcast cluster NAME and waits for work: a coordinator (token-benchmark --cluster NAME",
            "--workers N) hands it a share of the concurrency or request rate and of the requests, and a start",
            "instant; it sends them from here and streams the records back. Runs share after share until",
            "interrupted. The API key comes from this machine's OPENAI_API_KEY (ANTHROPIC_API_KEY for --llm-api",
            "anthropic): keys never cross the cluster."
        })
final class WorkerCommand implements Callable<Integer> {
    /** How long a stopped worker waits for its share to end before it leaves anyway. */
    private static final Duration LEAVE_WAIT = Duration.ofSeconds(10);
    private static final Duration TASK_ANSWER_GRACE = Duration.ofMillis(300);

    private final CliContext context;

    @Mixin
    DebugOption debugOption;

    @Option(names = "--cluster", required = true, paramLabel = "NAME", description = "The cluster to join.")
    String cluster;

    @Option(names = "--member", paramLabel = "HOST:PORT", showDefaultValue = Help.Visibility.NEVER,
            description = "A member to contact (repeatable): the coordinator's or another worker's address.")
    List<String> members = new ArrayList<>();

    @Option(names = "--bind", paramLabel = "HOST[:PORT]",
            description = "The address cluster traffic binds to and is announced at (default: every interface, "
                    + "the first free port from 5701).")
    String bind;

    @Option(names = "--no-client-warmup",
            description = "Skip warming the client's code against a private in-process simulator at start-up.")
    boolean noClientWarmup;

    WorkerCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        ClusterSettings settings = ClusterFlags.settings(cluster, members, bind);
        if (!noClientWarmup) {
            // the shares' first requests would otherwise carry JIT time; a warm-up cut short by a busy machine says so
            ClientWarmup.run(null, ClientWarmup.Budget.FULL).flatMap(ClientWarmup.Outcome::notice)
                    .ifPresent(context.err()::println);
        }
        LoadWorker worker = new LoadWorker(api -> context.env(ApiRegistry.get(api).keyVariable()),
                line -> context.err().println("llmperf4j worker: " + line));
        WorkerMember member = WorkerMember.start(settings, worker);
        HazelcastInstance instance = member.instance();
        CompletableFuture<Void> down = new CompletableFuture<>();
        instance.getLifecycleService().addLifecycleListener(event -> {
            if (event.getState() == LifecycleEvent.LifecycleState.SHUTDOWN) down.complete(null);
        });
        // SIGTERM or Ctrl-C: the share stops first (no new sends, requests in flight cancelled, so they close at the
        // server) and tells the coordinator what it sent, then the worker leaves. Leaving first let the share send on
        // for seconds while Hazelcast shut down, requests the coordinator had already counted as not sent
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (worker.leave("this worker got SIGTERM or Ctrl-C", LEAVE_WAIT)) {
                // the cut share's task answers the coordinator just after it returns: a member terminated first
                // printed Hazelcast's "instance is not active" stack trace instead
                try {
                    Thread.sleep(TASK_ANSWER_GRACE.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            instance.getLifecycleService().terminate();
        }, "llmperf4j-worker-shutdown"));
        if (!member.refusal().isDone()) { // a coordinator of another build already there: its refusal is the line
            context.err().println("llmperf4j worker " + ClusterNode.idOf(instance.getCluster().getLocalMember())
                    + " joined cluster '" + settings.clusterName() + "' (" + instance.getCluster().getMembers().size()
                    + " members); waiting for work; Ctrl-C to stop");
        }
        CompletableFuture.anyOf(down, member.refusal()).join();
        String refusal = member.refusal().getNow(null);
        if (refusal != null) {
            // a coordinator of another build: this worker cannot serve it, and says so instead of waiting on
            instance.getLifecycleService().terminate();
            throw new IllegalStateException(refusal + "; leaving the cluster");
        }
        return ExitCodes.OK;
    }
}

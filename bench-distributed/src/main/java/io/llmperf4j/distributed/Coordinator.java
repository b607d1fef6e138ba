package io.llmperf4j.distributed;

import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.ExecutionCallback;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.IExecutorService;
import io.llmperf4j.engine.client.HeaderWait;
import io.llmperf4j.engine.load.FreshRequests;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.RecordListener;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;
import io.llmperf4j.report.summary.Redaction;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * The coordinator of a distributed run, a member of the load cluster: waits for the workers, estimates their clock
 * offsets, has each check the endpoint (a connect, then one small request with its own key), hands out the shares,
 * fixes one shared start instant as soon as every worker has set its share up, collects the records (streamed as
 * they end, then the full outcome) and merges them with {@link RunMerger}. A worker that leaves mid-run (a
 * membership event, or its task failing) has its unfinished requests recorded as lost; the run completes with the
 * others.
 */
public final class Coordinator implements AutoCloseable {
    /**
     * Told about a run while it runs (progress), one call at a time, on the coordinator's cluster threads: the shared
     * start, then each measured record a worker streams as it ends (before the outcome's merge counts its tokens;
     * warmup records come only with the merged run), and, as soon as a worker is noticed gone, a LOST record for each
     * request it had sent without its record reaching the coordinator (those it never sent have none).
     */
    public interface Live {
        Live NONE = new Live() {
            @Override
            public void started(long startNanos) {
            }

            @Override
            public void onRecord(ScheduledRecord record) {
            }
        };

        /** The shared start instant on this machine's {@link System#nanoTime()}, before any share starts. */
        void started(long startNanos);

        void onRecord(ScheduledRecord record);

        /**
         * Told once, at the start, where to read the workers' requests waiting for their response headers (summed,
         * the oldest's start on this machine's clock): what a single machine's progress line reads from its client
         * to say a silent server.
         */
        default void headerWaits(Supplier<HeaderWait> waits) {
        }

        /**
         * Feeds a run's progress: {@code progress} is given the shared start instant and returns the listener told
         * each record as it streams in (a plain level's or a harness fork's progress line).
         */
        static Live feeding(LongFunction<RecordListener> progress) {
            return feeding(progress, waits -> { });
        }

        /** As {@link #feeding(LongFunction)}, {@code silentServer} given the workers' header waits at the start. */
        static Live feeding(LongFunction<RecordListener> progress, Consumer<Supplier<HeaderWait>> silentServer) {
            return new Live() {
                private volatile RecordListener listener = RecordListener.NONE;

                @Override
                public void started(long startNanos) {
                    listener = progress.apply(startNanos);
                }

                @Override
                public void onRecord(ScheduledRecord record) {
                    listener.onScheduledRecord(record);
                }

                @Override
                public void headerWaits(Supplier<HeaderWait> waits) {
                    silentServer.accept(waits);
                }
            };
        }
    }

    /** Round trips per worker for the clock offset; the shortest is kept. */
    static final int CLOCK_PROBES = 7;
    /** How long a worker gets beyond the run's timeout to report (the runners' cancel grace and transfer). */
    static final Duration REPORT_GRACE = Duration.ofSeconds(30);
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(15);
    /**
     * How long the start waits for every worker to set its share up (a client, its connections, its first prompts);
     * a worker later than that starts late, and its start lag says by how much.
     */
    static final Duration READY_WAIT = Duration.ofSeconds(60);

    private final HazelcastInstance instance;
    private final RecordInbox inbox;
    private final PromptBatches prompts;
    private final String clusterName;
    private final Consumer<String> log;
    private final BuildCheck builds;
    /** The run in progress and its workers, for {@link #stop()}. */
    private volatile String currentJob;
    private volatile List<Member> currentWorkers = List.of();

    private Coordinator(HazelcastInstance instance, RecordInbox inbox, PromptBatches prompts, String clusterName,
                        Consumer<String> log, BuildCheck builds) {
        this.instance = instance;
        this.inbox = inbox;
        this.prompts = prompts;
        this.clusterName = clusterName;
        this.log = log;
        this.builds = builds;
    }

    /** Joins (or founds) the cluster as its coordinator. */
    public static Coordinator start(ClusterSettings settings, Consumer<String> log) {
        return start(settings, log, BuildIdentity.current());
    }

    /** As {@link #start(ClusterSettings, Consumer)}, announcing {@code build}: tests give another build's. */
    static Coordinator start(ClusterSettings settings, Consumer<String> log, BuildIdentity build) {
        RecordInbox inbox = new RecordInbox();
        PromptBatches prompts = new PromptBatches();
        BuildCheck builds = new BuildCheck(build, ClusterNode.COORDINATOR, log);
        HazelcastInstance hz = ClusterNode.start(settings, ClusterNode.COORDINATOR,
                Map.of(RecordInbox.CONTEXT_KEY, inbox, PromptBatches.CONTEXT_KEY, prompts), build, builds);
        return new Coordinator(hz, inbox, prompts, settings.clusterName(), log, builds);
    }

    /** This member's cluster address. */
    public String address() {
        return ClusterNode.idOf(instance.getCluster().getLocalMember());
    }

    /**
     * Waits until {@code count} workers of this build are members, at most {@code wait}; returns them (the first
     * {@code count} by address when more joined). Workers of another build are refused (said once each as they
     * join, by {@link BuildCheck}); once they make up the count the wait stops: the user started the workers asked
     * for, and waiting longer would not change their build.
     *
     * @throws DistributedRunException when fewer joined in time, or the workers that joined include some of
     *                                 another build that the count needed
     */
    public List<Member> awaitWorkers(int count, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        List<Member> workers = workers();
        while (workers.size() < count) {
            List<BuildCheck.Refused> refused = builds.refused();
            if (!refused.isEmpty() && workers.size() + refused.size() >= count) {
                throw new DistributedRunException("cluster '" + clusterName + "': " + count + " worker"
                        + (count == 1 ? "" : "s") + " asked for, " + workers.size() + " joined" + joinedIds(workers)
                        + " and " + refused.size() + " refused, of another build than this coordinator's "
                        + builds.self().describe() + ": " + refusedWords(refused)
                        + "; start every worker from the coordinator's build");
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new DistributedRunException("waited " + wait.toSeconds() + " s for " + count + " workers in "
                        + "cluster '" + clusterName + "', " + workers.size() + " joined" + joinedIds(workers)
                        + (refused.isEmpty() ? "" : " (and " + refused.size() + " refused, of another build: "
                        + refusedWords(refused) + ")")
                        + "; " + missingWorkers(count - workers.size()));
            }
            sleep(200);
            workers = workers();
        }
        if (workers.size() > count) {
            log.accept(workers.size() + " workers joined; using " + count + ": "
                    + String.join(", ", ids(workers.subList(0, count))));
        }
        return List.copyOf(workers.subList(0, count));
    }

    /**
     * What to do about {@code missing} workers that did not join: this coordinator cannot see workers outside its
     * cluster, so it says both what starts one and what keeps a running one away.
     */
    private String missingWorkers(int missing) {
        String command = "llmperf4j worker --cluster " + clusterName + " --member " + address();
        return "if " + (missing == 1 ? "it is" : "they are") + " not running, start " + (missing == 1 ? "it" : "them")
                + " with: " + command + "; a worker already running joins within seconds when its --cluster is '"
                + clusterName + "' and its --member names this address, " + address() + ", or a member of this "
                + "cluster (and its port is open between the machines; or raise --worker-wait)";
    }

    /** Each worker's clock offset against this machine's, by worker id. */
    public Map<String, ClockOffset> measureClocks(List<Member> workers) {
        IExecutorService executor = executor();
        Map<String, ClockOffset> offsets = new LinkedHashMap<>();
        for (Member worker : workers) {
            ClockOffset best = null;
            for (int i = 0; i < CLOCK_PROBES; i++) {
                long t0 = EpochClock.nowMicros();
                long remote = get(executor.submitToMember(new ClockProbe(), worker), worker, "clock probe");
                long t1 = EpochClock.nowMicros();
                best = ClockOffset.of(t0, remote, t1).better(best);
            }
            offsets.put(ClusterNode.idOf(worker), best);
        }
        return offsets;
    }

    /**
     * Has every worker connect to the endpoint once.
     *
     * @throws DistributedRunException naming every worker that cannot reach it
     */
    public void checkReachable(List<Member> workers, URI endpoint) {
        IExecutorService executor = executor();
        Map<Member, Future<String>> answers = new LinkedHashMap<>();
        for (Member worker : workers) answers.put(worker, executor.submitToMember(new ReachabilityProbe(endpoint), worker));
        List<String> problems = new ArrayList<>();
        answers.forEach((worker, answer) -> {
            String problem = get(answer, worker, "reachability check");
            if (problem != null) problems.add("worker " + ClusterNode.idOf(worker) + " " + problem);
        });
        if (!problems.isEmpty()) {
            throw new DistributedRunException(String.join("; ", problems) + "; every worker must reach "
                    + Redaction.endpoint(endpoint.toString())
                    + " (check OPENAI_API_BASE, firewalls, and that it is not a loopback address seen from other "
                    + "machines)");
        }
    }

    /**
     * Has every worker send one request of one output token for {@code prompt} through the client it would build
     * for a share of {@code client} (its own key, one connection), all at once; each waits at most
     * {@code answerWait} for its answer, and this side as long plus the probes' transfer allowance. When answers are
     * still missing after {@code noticeAfter}, {@code stillWaiting} is told the workers not heard from yet (once).
     *
     * @return each worker's answer, by worker id, in the order of {@code workers}; judged by the caller
     * @throws DistributedRunException when a worker's check cannot run (its task fails or never returns)
     */
    public Map<String, RequestCheck> checkRequests(List<Member> workers, ClientSpec client, String prompt,
                                                   Duration answerWait, Duration noticeAfter,
                                                   Consumer<List<String>> stillWaiting) {
        IExecutorService executor = executor();
        long start = System.nanoTime();
        Map<Member, Future<String>> answers = new LinkedHashMap<>();
        for (Member worker : workers) {
            answers.put(worker, executor.submitToMember(new RequestProbe(client, prompt, answerWait), worker));
        }
        if (noticeAfter.compareTo(answerWait) < 0) {
            long noticeAt = start + noticeAfter.toNanos();
            for (Future<String> answer : answers.values()) {
                try {
                    answer.get(Math.max(0, noticeAt - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    break; // someone is late: say so below
                } catch (ExecutionException e) {
                    // reported by get below
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new DistributedRunException("interrupted during the pre-run check of the workers");
                }
            }
            List<String> late = new ArrayList<>();
            answers.forEach((worker, answer) -> {
                if (!answer.isDone()) late.add(ClusterNode.idOf(worker));
            });
            if (!late.isEmpty()) stillWaiting.accept(late);
        }
        long deadline = start + answerWait.plus(PROBE_TIMEOUT).toNanos();
        Map<String, RequestCheck> checks = new LinkedHashMap<>();
        answers.forEach((worker, answer) -> checks.put(ClusterNode.idOf(worker), Wire.read(get(answer, worker,
                "pre-run check", Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))), RequestCheck.class)));
        return checks;
    }

    /**
     * Runs {@code plan} on {@code workers}: splits it, starts every share at one instant, waits for them (or their
     * loss) and merges the results; output tokens are counted here with {@code outputTokens}.
     */
    public MergedRun run(DistributedPlan plan, List<Member> workers, Map<String, ClockOffset> clocks,
                         TokenCounter outputTokens) {
        return run(plan, workers, clocks, outputTokens, () -> false);
    }

    /**
     * As {@link #run(DistributedPlan, List, Map, TokenCounter)}, stopped at once (every worker reports what it
     * recorded) when {@code stopRequested} holds as the shares go out: a {@link #stop()} that raced with the start
     * of this run is not lost.
     */
    public MergedRun run(DistributedPlan plan, List<Member> workers, Map<String, ClockOffset> clocks,
                         TokenCounter outputTokens, BooleanSupplier stopRequested) {
        return run(plan, workers, clocks, outputTokens, stopRequested, Live.NONE);
    }

    /** As {@link #run(DistributedPlan, List, Map, TokenCounter, BooleanSupplier)}, telling {@code live} as it goes. */
    public MergedRun run(DistributedPlan plan, List<Member> workers, Map<String, ClockOffset> clocks,
                         TokenCounter outputTokens, BooleanSupplier stopRequested, Live live) {
        List<Member> used = workersFor(plan, workers);
        if (used.size() < workers.size()) {
            boolean byCap = plan.openLoop() != null && plan.openLoop().maxConcurrency().isPresent()
                    && plan.openLoop().maxConcurrency().getAsInt() < workers.size();
            log.accept(byCap ? "--max-concurrency " + plan.openLoop().maxConcurrency().getAsInt() + " is below the "
                    + workers.size() + " workers (each needs a request in flight of its own, and the cap holds across "
                    + "them): using " + String.join(", ", ids(used))
                    : "this load is too small for " + workers.size() + " workers (each needs a slot and a request): "
                    + "using " + String.join(", ", ids(used)));
        }
        return runOn(plan, used, clocks, outputTokens, stopRequested, live);
    }

    /** As many workers as the load can keep busy: one slot (or arrival) and one request each at least. */
    private static List<Member> workersFor(DistributedPlan plan, List<Member> workers) {
        int n = Math.min(workers.size(), plan.specs().size());
        if (plan.openLoop() == null) {
            n = Math.min(n, plan.concurrency());
        } else {
            n = Math.min(n, plan.openLoop().schedule().size()); // each worker one arrival at least
            // the cap is split between the workers, one at least each: more workers than the cap would let more
            // requests in flight than it says (a cap of 1 on 2 workers let 2)
            OptionalInt cap = plan.openLoop().maxConcurrency();
            if (cap.isPresent()) n = Math.min(n, cap.getAsInt());
        }
        return workers.subList(0, Math.max(1, n));
    }

    private MergedRun runOn(DistributedPlan plan, List<Member> workers, Map<String, ClockOffset> clocks,
                            TokenCounter outputTokens, BooleanSupplier stopRequested, Live live) {
        int n = workers.size();
        List<LoadShare> shares = new ArrayList<>();
        List<List<RequestSpec>> specs;
        // fresh prompts: numbered across the run, batch k dealt out as the first
        NumberedBatches fresh = plan.specs() instanceof FreshRequests f ? new NumberedBatches(f) : null;
        List<RequestSpec> first = fresh == null ? plan.specs() : fresh.apply(0);
        IntFunction<List<List<RequestSpec>>> laterBatches = null;
        if (plan.openLoop() == null) {
            int[] concurrency = WorkloadSplit.evenly(plan.concurrency(), n);
            int[] counts = WorkloadSplit.proportional(first.size(), concurrency);
            specs = WorkloadSplit.specs(first, counts);
            if (fresh != null) {
                laterBatches = k -> {
                    List<RequestSpec> batch = fresh.apply(k);
                    return WorkloadSplit.specs(batch, WorkloadSplit.proportional(batch.size(), concurrency));
                };
            }
            Warmup[] warmups = warmups(plan.warmup(), n);
            for (int i = 0; i < n; i++) {
                shares.add(plan.continuous() ? LoadShare.closedFor(concurrency[i], plan.timeout())
                        : LoadShare.closed(concurrency[i], counts[i], plan.timeout(), warmups[i]));
            }
        } else {
            // one schedule for the whole run, dealt round-robin: arrival j goes to worker j mod n, at its own instant
            OpenLoopSettings whole = plan.openLoop();
            // arrival i of a share sends its spec i mod M: with a request count, the share's specs are its own
            int[] specCounts = whole.maxRequests().isPresent() && whole.maxRequests().getAsInt() <= first.size()
                    ? WorkloadSplit.evenly(whole.maxRequests().getAsInt(), n) : WorkloadSplit.evenly(first.size(), n);
            specs = WorkloadSplit.specs(first.subList(0, sum(specCounts)), specCounts);
            int[] caps = whole.maxConcurrency().isPresent()
                    ? WorkloadSplit.evenly(whole.maxConcurrency().getAsInt(), n) : null;
            if (caps != null && n > 1) {
                // the cap is a cluster-wide one, held as each worker's part of it; the arrivals are dealt evenly,
                // so parts that differ (a cap that is no multiple of the workers) let the smaller one back up first
                List<String> parts = new ArrayList<>();
                for (int c : caps) parts.add(Integer.toString(c));
                log.accept("--max-concurrency " + whole.maxConcurrency().getAsInt() + " split over " + n
                        + " workers: " + String.join(" + ", parts) + (caps[0] == caps[n - 1] ? ""
                        : " (arrivals are dealt evenly: the workers with " + caps[n - 1] + " back up first; a "
                        + "multiple of " + n + " keeps them even)"));
            }
            for (int i = 0; i < n; i++) shares.add(LoadShare.open(whole, i, n, caps == null ? null : caps[i]));
            if (fresh != null) {
                laterBatches = k -> {
                    List<RequestSpec> batch = fresh.apply(k);
                    return WorkloadSplit.specs(batch, WorkloadSplit.evenly(batch.size(), n));
                };
            }
        }

        String jobId = UUID.randomUUID().toString();
        currentJob = jobId;
        currentWorkers = List.copyOf(workers);
        Collection collection = new Collection(workers, shares, live, log);
        inbox.open(jobId, collection);
        if (laterBatches != null) prompts.open(jobId, n, laterBatches);
        UUID listener = instance.getCluster().addMembershipListener(collection);
        try {
            UUID self = instance.getCluster().getLocalMember().getUuid();
            IExecutorService executor = executor();
            for (int i = 0; i < n; i++) {
                Member worker = workers.get(i);
                String id = ClusterNode.idOf(worker);
                WorkerJob job = new WorkerJob(jobId, id, self,
                        plan.client().withMaxConnections(shares.get(i).openLoop()
                                ? shares.get(i).maxConcurrency() == null ? plan.client().maxConnections()
                                : shares.get(i).maxConcurrency() : shares.get(i).concurrency()),
                        shares.get(i), specs.get(i), laterBatches == null ? null : i);
                log.accept("worker " + id + ": " + shares.get(i).describe());
                CompletableFuture<WorkerOutcome> done = collection.done.get(worker.getUuid());
                executor.submitToMember(new RunShare(job), worker, new ExecutionCallback<String>() {
                    @Override
                    public void onResponse(String response) {
                        done.complete(Wire.read(response, WorkerOutcome.class));
                    }

                    @Override
                    public void onFailure(Throwable t) {
                        done.completeExceptionally(t);
                    }
                });
            }
            if (stopRequested.getAsBoolean()) stop(); // a worker keeps a stop that precedes its share's start
            // every worker set up (or gone): the start instant, as soon as each can be told it in time
            collection.awaitReady(READY_WAIT);
            Duration lead = plan.startLead().plus(Duration.ofNanos(2_000 * maxRoundTripMicros(clocks, workers)));
            // one instant on both clocks, from a pair read together (EpochClock.anchor): the workers are given the
            // first, the merge and the live progress count from the second
            EpochClock.Anchor now = EpochClock.anchor();
            long startEpochMicros = now.epochMicros() + lead.toNanos() / 1_000L;
            long startNanos = now.nanoTimeOf(startEpochMicros);
            collection.started(startNanos);
            for (Member worker : workers) {
                String id = ClusterNode.idOf(worker);
                long offset = clocks.containsKey(id) ? clocks.get(id).appliedMicros() : 0;
                try {
                    executor.executeOnMember(new StartShare(jobId, startEpochMicros + offset), worker);
                } catch (RuntimeException e) {
                    // a worker that left: its share's outcome says so
                }
            }
            long deadline = startNanos + plan.runTimeout().toNanos() + REPORT_GRACE.toNanos();
            List<RunMerger.WorkerPart> parts = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Member worker = workers.get(i);
                String id = ClusterNode.idOf(worker);
                CompletableFuture<WorkerOutcome> done = collection.done.get(worker.getUuid());
                WorkerOutcome outcome = null;
                String lostReason = null;
                try {
                    outcome = done.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    lostReason = "worker " + id + " did not report within " + (plan.runTimeout()
                            .plus(REPORT_GRACE)).toSeconds() + " s of the start";
                } catch (ExecutionException e) {
                    lostReason = reason(id, e.getCause()); // said when it happened (Collection#gone)
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    lostReason = "the coordinator was interrupted before worker " + id + " reported";
                }
                if (outcome == null) {
                    collection.gone(i, lostReason); // told once: a worker that left was told of as it left
                    parts.add(collection.lostPart(i, specs.get(i), clocks.get(id)));
                } else {
                    parts.add(new RunMerger.WorkerPart(id, shares.get(i), specs.get(i), clocks.get(id), outcome,
                            List.of(), List.of(), new long[0], null));
                }
            }
            inbox.close(jobId); // the records still on their way are in the outcomes
            collection.caughtUp(parts);
            MergedRun merged = RunMerger.merge(parts, plan, startEpochMicros, startNanos, outputTokens);
            if (plan.specs() instanceof FreshRequests sequence) tellPrompts(sequence, parts);
            return merged;
        } finally {
            currentJob = null;
            instance.getCluster().removeMembershipListener(listener);
            inbox.close(jobId);
            prompts.close(jobId);
        }
    }

    /**
     * Stops the run in progress, from any thread (Ctrl-C): every worker stops sending, cancels its requests in flight
     * and reports what it recorded, so the run ends with everything written, as a stopped single-machine run does.
     */
    public void stop() {
        String job = currentJob;
        if (job == null) return;
        try {
            executor().executeOnMembers(new StopShare(job), currentWorkers);
        } catch (RuntimeException e) {
            log.accept("could not tell every worker to stop: " + e.getMessage());
        }
    }

    @Override
    public void close() {
        instance.shutdown();
    }

    /**
     * Tells the run's fresh prompts' notices (the coordinator's console) what the workers' sequences found, summed:
     * once for the run, as one machine's run tells it, instead of on each worker's console.
     */
    private static void tellPrompts(FreshRequests sequence, List<RunMerger.WorkerPart> parts) {
        FreshRequests.Tally sum = null;
        for (RunMerger.WorkerPart part : parts) {
            FreshRequests.Tally t = part.outcome() == null ? null : part.outcome().prompts();
            if (t != null) sum = sum == null ? t : sum.plus(t);
        }
        if (sum != null) sequence.tell(sum);
    }

    /** The longest round trip of the workers' clock probes (0 when unmeasured), in microseconds. */
    private static long maxRoundTripMicros(Map<String, ClockOffset> clocks, List<Member> workers) {
        long max = 0;
        for (Member w : workers) {
            ClockOffset c = clocks.get(ClusterNode.idOf(w));
            if (c != null) max = Math.max(max, c.roundTripMicros());
        }
        return max;
    }

    /** Warmup requests are split like the requests; a warmup time applies to every worker alike. */
    private static Warmup[] warmups(Warmup whole, int n) {
        Warmup[] out = new Warmup[n];
        int[] counts = whole instanceof Warmup.ForRequests r ? WorkloadSplit.evenly(r.count(), n) : null;
        for (int i = 0; i < n; i++) out[i] = counts == null ? whole : Warmup.requests(counts[i]);
        return out;
    }

    /** The loss of a worker stopped on its machine (SIGTERM or Ctrl-C), which cut its share before it left. */
    private static String leftStopped(String id) {
        return "worker " + id + " left the cluster mid-run (stopped on its machine)";
    }

    private static String reason(String id, Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            // its own SIGTERM or Ctrl-C: it stopped sending, cancelled what was in flight, then left
            if (t instanceof WorkerStoppedException) return leftStopped(id);
        }
        if (cause instanceof WorkerLeftException || cause instanceof com.hazelcast.core.MemberLeftException
                || cause instanceof com.hazelcast.spi.exception.TargetNotMemberException) {
            return "worker " + id + " left the cluster mid-run";
        }
        return "worker " + id + " failed: " + (cause == null ? "unknown" : cause.getMessage());
    }

    /** Those of {@code workers} still in the cluster, in their order: a sweep's next level deals its load to them. */
    public List<Member> stillMembers(List<Member> workers) {
        Set<Member> members = instance.getCluster().getMembers();
        return workers.stream().filter(members::contains).toList();
    }

    /**
     * As {@link #stillMembers(List)} for harness fork {@code fork} (from 1), saying on the log which workers it runs
     * without: "fork 2 runs without worker 127.0.0.1:5702 (it left the cluster in an earlier fork)".
     */
    public List<Member> stillMembersForFork(List<Member> workers, int fork) {
        List<Member> present = stillMembers(workers);
        if (present.size() < workers.size()) {
            List<String> gone = ids(workers.stream().filter(w -> !present.contains(w)).toList());
            log.accept("fork " + fork + " runs without worker" + (gone.size() == 1 ? " " : "s ")
                    + String.join(", ", gone)
                    + (gone.size() == 1 ? " (it left" : " (they left") + " the cluster in an earlier fork)");
        }
        return present;
    }

    /**
     * Worker {@code workerId}'s measured requests it said it sent and whose record has not come, over the runs in
     * progress: what its loss would turn into LOST records now. Package-private: the lost-worker tests crash a worker
     * once the word of its sends has come, instead of after a guessed pause.
     */
    int sentWithoutRecord(String workerId) {
        return inbox.sentWithoutRecord(workerId);
    }

    private List<Member> workers() {
        List<Member> workers = new ArrayList<>();
        for (Member m : instance.getCluster().getMembers()) {
            if (ClusterNode.isWorker(m) && builds.sameBuild(m)) workers.add(m); // another build's is refused
        }
        workers.sort(Comparator.comparing(ClusterNode::idOf));
        return workers;
    }

    private IExecutorService executor() {
        return instance.getExecutorService(ClusterNode.EXECUTOR);
    }

    private static String joinedIds(List<Member> workers) {
        return workers.isEmpty() ? "" : " (" + String.join(", ", ids(workers)) + ")";
    }

    /** "127.0.0.1:5702 runs llmperf4j 0.0.9 (wire 1a2b3c4d)", for each refused worker. */
    private static String refusedWords(List<BuildCheck.Refused> refused) {
        return String.join(", ", refused.stream().map(r -> r.id() + " runs " + r.build().describe()).toList());
    }

    private static List<String> ids(List<Member> members) {
        return members.stream().map(ClusterNode::idOf).toList();
    }

    private static int sum(int[] values) {
        int s = 0;
        for (int v : values) s += v;
        return s;
    }

    private static <T> T get(Future<T> future, Member worker, String what) {
        return get(future, worker, what, PROBE_TIMEOUT);
    }

    private static <T> T get(Future<T> future, Member worker, String what, Duration timeout) {
        try {
            return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DistributedRunException("interrupted during the " + what + " of worker "
                    + ClusterNode.idOf(worker));
        } catch (ExecutionException | TimeoutException e) {
            // an ExecutionException may come without a cause (a member gone mid-call): its own words then
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            throw new DistributedRunException("the " + what + " of worker " + ClusterNode.idOf(worker)
                    + " failed: " + (cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage()));
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DistributedRunException("interrupted while waiting for workers");
        }
    }

    /** A worker that left the cluster while its share ran. */
    static final class WorkerLeftException extends RuntimeException {
        WorkerLeftException(String message) {
            super(message);
        }
    }

    /**
     * One run's collection: by worker, the records it streamed, the requests it said it sent and the connections it
     * opened; each worker's end; and membership changes. A worker that leaves (or whose share fails) is told of at
     * once, whichever it is, and its part is frozen there: its requests sent without a record are LOST from then on,
     * in the progress line as in the merged run.
     */
    private static final class Collection implements MembershipListener, RecordInbox.Collector {
        final Map<UUID, CompletableFuture<WorkerOutcome>> done = new HashMap<>();
        /** By worker id: set up, ended or gone. */
        private final Map<String, CompletableFuture<Void>> ready = new HashMap<>();
        private final Map<String, Track> tracks = new LinkedHashMap<>();
        private final List<Track> byIndex = new ArrayList<>();
        private final Set<UUID> workers;
        private final Live live;
        private final Consumer<String> log;
        private long startNanos;
        private boolean started;

        Collection(List<Member> members, List<LoadShare> shares, Live live, Consumer<String> log) {
            this.live = live;
            this.log = log;
            for (int i = 0; i < members.size(); i++) {
                Member m = members.get(i);
                Track track = new Track(ClusterNode.idOf(m), shares.get(i));
                CompletableFuture<WorkerOutcome> end = new CompletableFuture<>();
                CompletableFuture<Void> set = new CompletableFuture<>();
                end.whenComplete((o, e) -> set.complete(null));
                int index = i;
                end.whenComplete((o, e) -> {
                    if (e != null) gone(index, reason(track.id, e instanceof CompletionException && e.getCause() != null
                            ? e.getCause() : e));
                });
                done.put(m.getUuid(), end);
                ready.put(track.id, set);
                tracks.put(track.id, track);
                byIndex.add(track);
            }
            this.workers = Set.copyOf(done.keySet());
        }

        synchronized void started(long startNanos) {
            this.startNanos = startNanos;
            this.started = true;
            live.started(startNanos);
            live.headerWaits(this::headerWait);
        }

        @Override
        public synchronized void onHeaderWait(String workerId, int inFlight, int waiting, long oldestAgeNanos) {
            Track track = tracks.get(workerId);
            if (track == null || track.goneReason != null) return;
            track.waiting = waiting;
            track.waitingInFlight = inFlight;
            track.oldestWaitStartNanos = System.nanoTime() - oldestAgeNanos;
        }

        /**
         * The workers' requests waiting for headers, as their last words said (those of a worker that left are not
         * waited for), over their requests in flight; a worker with nothing waiting long counts its requests sent
         * without a record as in flight.
         */
        synchronized HeaderWait headerWait() {
            int inFlight = 0;
            int waiting = 0;
            long oldest = 0;
            for (Track t : byIndex) {
                if (t.goneReason != null) continue;
                inFlight += t.waiting > 0 ? Math.max(t.waitingInFlight, t.waiting) : t.sent.size();
                if (t.waiting == 0) continue;
                if (waiting == 0 || t.oldestWaitStartNanos - oldest < 0) oldest = t.oldestWaitStartNanos;
                waiting += t.waiting;
            }
            return new HeaderWait(inFlight, waiting, oldest);
        }

        @Override
        public synchronized void onReady(String workerId, long[] preconnectNanos) {
            Track track = tracks.get(workerId);
            if (track != null) track.preconnectNanos = preconnectNanos.clone();
            CompletableFuture<Void> set = ready.get(workerId);
            if (set != null) set.complete(null);
        }

        /** Waits until every worker is set up (or has ended or left), at most {@code wait}. */
        void awaitReady(Duration wait) {
            try {
                CompletableFuture.allOf(ready.values().toArray(CompletableFuture<?>[]::new))
                        .get(wait.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException e) {
                // start anyway: a late worker's start lag tells
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public synchronized void onRecord(String workerId, ScheduledRecord record) {
            Track track = tracks.get(workerId);
            if (track == null || track.goneReason != null) return; // frozen when it left: told as lost already
            String id = record.record().clientRequestId();
            track.sent.remove(id);
            track.ended.add(id);
            if (track.streamed.put(id, record) == null) live.onRecord(record);
        }

        @Override
        public synchronized void onLeaving(String workerId) {
            Track track = tracks.get(workerId);
            if (track != null) gone(byIndex.indexOf(track), leftStopped(workerId));
        }

        @Override
        public synchronized int sentWithoutRecord(String workerId) {
            Track track = tracks.get(workerId);
            return track == null ? 0 : track.sent.size();
        }

        @Override
        public synchronized void onSent(String workerId, SentRequests sends) {
            Track track = tracks.get(workerId);
            if (track == null || track.goneReason != null) return;
            for (SentRequests.Sent s : sends.sends()) {
                if (!track.ended.contains(s.clientRequestId())) track.sent.put(s.clientRequestId(), s);
            }
        }

        /**
         * Worker {@code index} left or failed ({@code reason}): says so, once, with what becomes of its requests,
         * and tells {@link Live} a LOST record for each it had sent without a record.
         */
        synchronized void gone(int index, String reason) {
            Track track = byIndex.get(index);
            if (track.goneReason != null || reason == null) return;
            track.goneReason = reason;
            List<ScheduledRecord> lost = RunMerger.lostRecords(track.id, track.sent.values(), reason);
            Integer assigned = track.share.assignedRequests();
            int sent = track.streamed.size() + lost.size();
            log.accept(reason + (started ? String.format(java.util.Locale.ROOT, " (noticed %.1f s after the start)",
                    (System.nanoTime() - startNanos) / 1e9) : "") + ": " + RunMerger.lostWords(lost.size())
                    + (assigned == null ? "" : ", " + Math.max(0, assigned - sent) + " of its " + assigned
                    + " it never said it sent are not sent (a send in its last milliseconds may be among them)"));
            if (started) {
                for (ScheduledRecord r : lost) live.onRecord(r);
            }
        }

        /** Worker {@code index}'s part as the coordinator knows it, for one that never reported. */
        synchronized RunMerger.WorkerPart lostPart(int index, List<RequestSpec> specs, ClockOffset clock) {
            Track track = byIndex.get(index);
            return new RunMerger.WorkerPart(track.id, track.share, specs, clock, null,
                    List.copyOf(track.streamed.values()), List.copyOf(track.sent.values()), track.preconnectNanos,
                    track.goneReason);
        }

        /**
         * Tells {@link Live} the measured records of the outcomes that were not streamed (an outcome can overtake
         * its worker's last records), so it hears each one once.
         */
        synchronized void caughtUp(List<RunMerger.WorkerPart> parts) {
            for (RunMerger.WorkerPart part : parts) {
                if (part.outcome() == null) continue;
                for (ScheduledRecord r : part.outcome().timeline()) {
                    if (!r.warmup()) onRecord(part.workerId(), r);
                }
            }
        }

        @Override
        public void memberAdded(MembershipEvent event) {
        }

        @Override
        public void memberRemoved(MembershipEvent event) {
            UUID uuid = event.getMember().getUuid();
            if (workers.contains(uuid)) {
                done.get(uuid).completeExceptionally(new WorkerLeftException(ClusterNode.idOf(event.getMember())
                        + " left the cluster"));
            }
        }

        /** One worker's side of the run, as its messages tell it. */
        private static final class Track {
            final String id;
            final LoadShare share;
            final Map<String, ScheduledRecord> streamed = new LinkedHashMap<>();
            /** Sent, no record yet, by client request id, in send order. */
            final Map<String, SentRequests.Sent> sent = new LinkedHashMap<>();
            /** Client request ids of requests that ended (a record came, possibly before word of its send). */
            final Set<String> ended = new HashSet<>();
            long[] preconnectNanos = new long[0];
            String goneReason;
            /** Its last word on requests waiting for headers ({@link HeaderWaitReporter}); 0 when none waits long. */
            int waiting;
            int waitingInFlight;
            long oldestWaitStartNanos;

            Track(String id, LoadShare share) {
                this.id = id;
                this.share = share;
            }
        }
    }
}

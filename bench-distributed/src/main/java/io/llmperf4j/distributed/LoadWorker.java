package io.llmperf4j.distributed;

import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.ExecutionCallback;
import com.hazelcast.core.HazelcastInstance;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.engine.client.impl.Redactor;
import io.llmperf4j.engine.load.ClosedLoopResult;
import io.llmperf4j.engine.load.ArrivalSchedule;
import io.llmperf4j.engine.load.ClosedLoopRunner;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.FreshRequests;
import io.llmperf4j.engine.load.OpenLoopResult;
import io.llmperf4j.engine.load.OpenLoopRunner;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.engine.overhead.ClientOverheadMonitor;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.PartialAnswer;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * A load worker's engine side: runs the shares the coordinator sends (one at a time) with the engine's own runners,
 * streams each record to the coordinator as it ends, and returns the share's outcome. Output tokens are left
 * uncounted (-1): the coordinator counts them with its tokenizer, so workers need none.
 */
public final class LoadWorker {
    /** Where {@link RunShare} and {@link RequestProbe} find the worker of its process ({@link #of}). */
    public static final String CONTEXT_KEY = "llmperf4j.worker";
    private static final TokenCounter COUNTED_BY_COORDINATOR = text -> -1;
    /**
     * A share is handed to its runner this long before the shared instant: the runner sets up (its fresh prompts
     * drawn ahead, an open loop's pacer thread; milliseconds in a fresh JVM), then waits for the instant itself and
     * starts its clock and its client's watch at it, while a worker that set up after the instant would start its
     * clock that much late.
     */
    static final long RUNNER_SET_UP_NANOS = 50_000_000L;
    /** How often a wait for the start looks for a stop. */
    private static final long STOP_CHECK_NANOS = 10_000_000L;

    private final UnaryOperator<String> apiKeys;
    private final Consumer<String> log;
    /** Held while a share runs: {@link #leave} waits on it for the share's end. */
    private final ReentrantLock oneShareAtATime = new ReentrantLock();
    /** The share running now and how to stop it; a stop that comes before its runner starts is kept here. */
    private final Map<String, Runnable> stops = new ConcurrentHashMap<>();
    /** The shares stopped, with what stopped them (for the share's last line). */
    private final Map<String, String> stopped = new ConcurrentHashMap<>();
    /** Why this worker is leaving (its own SIGTERM or Ctrl-C), once it is: no share runs from then on. */
    private volatile String leaving;
    /** Each share's start instant (this machine's wall clock), once the coordinator has fixed it. */
    private final Map<String, CompletableFuture<Long>> starts = new ConcurrentHashMap<>();

    /**
     * @param apiKeys the API key for an {@code --llm-api} name, from this worker's own environment (null or empty
     *                for none): keys never cross the cluster
     * @param log     one line per share started and ended
     */
    public LoadWorker(UnaryOperator<String> apiKeys, Consumer<String> log) {
        this.apiKeys = apiKeys;
        this.log = log;
    }

    /** The worker of {@code instance}'s process, for a task the coordinator sent to it. */
    static LoadWorker of(HazelcastInstance instance) {
        Object worker = instance.getConfig().getUserContext().get(CONTEXT_KEY);
        if (!(worker instanceof LoadWorker w)) {
            throw new IllegalStateException("member " + ClusterNode.idOf(instance.getCluster().getLocalMember())
                    + " is not a load worker");
        }
        return w;
    }

    WorkerOutcome run(WorkerJob job, HazelcastInstance instance) {
        oneShareAtATime.lock();
        try {
            if (leaving != null) throw new WorkerStoppedException(job.workerId(), leaving);
            log.accept("share of run " + job.jobId() + ": " + job.load().describe() + " against "
                    + job.client().shownEndpoint());
            Member coordinator = member(instance, job.coordinator());
            try (RecordStream stream = new RecordStream(instance.getExecutorService(ClusterNode.EXECUTOR),
                    coordinator, job);
                 NettyLlmClient client = new NettyLlmClient(
                    job.client().clientConfig(apiKeys.apply(job.client().llmApi())), job.client().api());
                 HeaderWaitReporter silence = new HeaderWaitReporter(client::headerWait,
                         instance.getExecutorService(ClusterNode.EXECUTOR), coordinator, job.jobId(),
                         job.workerId())) {
                ClientOverheadMonitor.measureIdleBaseline(client); // before the shared start, not after it
                AtomicReference<FreshRequests.Tally> prompts = new AtomicReference<>();
                List<RequestSpec> specs = requests(job, instance, coordinator, prompts::set);
                SendWatchingClient watched = new SendWatchingClient(client, stream,
                        job.load().openLoop() ? job.load().schedule().warmupArrivals() : 0);
                String[] stopReason = new String[1];
                WorkerOutcome outcome = (job.load().openLoop()
                        ? runOpen(job, specs, watched, stream, instance, stopReason)
                        : runClosed(job, specs, watched, stream, instance, stopReason)).withPrompts(prompts.get());
                String lag = String.format(java.util.Locale.ROOT, "%.3f", outcome.startLagNanos() / 1e6);
                String why = leaving != null ? leaving : stopReason[0];
                if (outcome.stopped() || leaving != null) {
                    // what it sent, not what it recorded: a stop cuts requests in flight, and the user compares
                    // this line with the server's log
                    log.accept("share of run " + job.jobId() + " stopped (" + (why == null ? "stopped" : why)
                            + "): " + outcome.requestsSent() + " request" + (outcome.requestsSent() == 1 ? "" : "s")
                            + " sent, start " + lag + " ms after the shared instant");
                } else {
                    log.accept("share of run " + job.jobId() + " done: " + outcome.timeline().size()
                            + " requests, start " + lag + " ms after the shared instant");
                }
                if (leaving != null) {
                    // the coordinator hears every send and record of the cut share before the word that this
                    // worker left, so it counts as lost or not sent exactly what the server did not see
                    stream.drain(LEAVE_FLUSH);
                    sayLeaving(instance, coordinator, job);
                    throw new WorkerStoppedException(job.workerId(), leaving);
                }
                return outcome;
            }
        } finally {
            oneShareAtATime.unlock();
        }
    }

    /** How long a leaving worker gives its last sends and records to reach the coordinator. */
    private static final Duration LEAVE_FLUSH = Duration.ofSeconds(2);

    /**
     * Stops this worker before it leaves the cluster (its SIGTERM or Ctrl-C), from any thread: the share running
     * now, or about to, sends nothing more and cancels its requests in flight (they close at the server), and no
     * later share starts; waits at most {@code wait} for the share to end and tell the coordinator what it sent.
     *
     * @param reason what stops it, for its last line ("this worker got SIGTERM or Ctrl-C")
     * @return whether a share was running (cut now, or still ending after the wait)
     */
    public boolean leave(String reason, Duration wait) {
        leaving = reason;
        for (Map.Entry<String, Runnable> s : stops.entrySet()) {
            stopped.putIfAbsent(s.getKey(), reason);
            s.getValue().run();
        }
        if (oneShareAtATime.tryLock()) { // nothing running
            oneShareAtATime.unlock();
            return false;
        }
        try {
            if (oneShareAtATime.tryLock(wait.toNanos(), TimeUnit.NANOSECONDS)) oneShareAtATime.unlock();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return true;
    }

    /**
     * Tells the coordinator this worker is leaving, and waits for its answer: sent after the share's last sends and
     * records, on the same connection, so the coordinator settles the part with them, before the cluster drops it.
     */
    private static void sayLeaving(HazelcastInstance instance, Member coordinator, WorkerJob job) {
        CompletableFuture<Object> told = new CompletableFuture<>();
        try {
            instance.getExecutorService(ClusterNode.EXECUTOR).submitToMember(
                    new DeliverLeaving(job.jobId(), job.workerId()), coordinator,
                    new ExecutionCallback<Object>() {
                        @Override
                        public void onResponse(Object response) {
                            told.complete(response);
                        }

                        @Override
                        public void onFailure(Throwable t) {
                            told.complete(null);
                        }
                    });
            told.get(LEAVE_FLUSH.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            // the coordinator is gone or slow: it settles this worker's part when the cluster drops it
        }
    }

    /**
     * The pre-run check from here: one request of one output token for {@code prompt} through the client a share
     * would use ({@code client}'s settings with this worker's own key, one connection), waiting at most
     * {@code wait}. Without a key for the API (unset or blank) nothing is sent. The answer carries the failure, if
     * any, with this worker's key (and credential headers) redacted from the server's message; the coordinator
     * judges it.
     */
    RequestCheck checkRequest(ClientSpec client, String prompt, Duration wait) {
        String key = apiKeys.apply(client.llmApi());
        if (key == null || key.isBlank()) {
            RequestCheck.KeyState state = key == null ? RequestCheck.KeyState.UNSET : RequestCheck.KeyState.EMPTY;
            log.accept("pre-run check: the API key for --llm-api " + client.llmApi() + " is "
                    + (key == null ? "not set" : "empty") + " here; nothing sent");
            return new RequestCheck(state, false, null);
        }
        ClientConfig config = client.withMaxConnections(1).clientConfig(key);
        RequestRecord record;
        try (NettyLlmClient c = new NettyLlmClient(config, client.api())) {
            RequestHandle handle = c.send(new RequestSpec(0, prompt, 0, 1));
            try {
                record = handle.completion().get(wait.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                handle.cancel();
                // what came before the cancel, its record's within a second (null if it takes longer)
                PartialAnswer answer = PartialAnswer.of(handle.completion().copy()
                        .completeOnTimeout(null, 1, TimeUnit.SECONDS).join());
                log.accept("pre-run check: " + (answer == null ? "no answer from " + client.shownEndpoint()
                        : client.shownEndpoint() + " " + answer.words() + "; gave up") + " in " + wait.toMillis()
                        + " ms");
                return new RequestCheck(RequestCheck.KeyState.SET, false, null, answer);
            } catch (ExecutionException e) {
                return new RequestCheck(RequestCheck.KeyState.SET, false, null);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new RequestCheck(RequestCheck.KeyState.SET, false, null);
            }
        }
        if (record.succeeded()) {
            log.accept("pre-run check of model " + client.model() + " against " + client.shownEndpoint() + ": ok");
            return new RequestCheck(RequestCheck.KeyState.SET, true, null);
        }
        Failure f = record.failure();
        Failure redacted = new Failure(f.kind(), f.code(),
                new Redactor(config.apiKey(), config.extraHeaders()).redact(f.message()));
        log.accept("pre-run check of model " + client.model() + " against " + client.shownEndpoint() + ": "
                + f.kind() + (f.code() > 0 ? " " + f.code() : ""));
        // the client's own limit ended it: the coordinator words it as a check that gave up, with what came
        boolean timedOut = f.kind() == FailureKind.IDLE_TIMEOUT || f.kind() == FailureKind.REQUEST_TIMEOUT;
        return new RequestCheck(RequestCheck.KeyState.SET, true, redacted,
                timedOut ? PartialAnswer.of(record) : null);
    }

    /**
     * A closed loop. Its slots' connections are opened as soon as the share arrives (as a single machine opens them
     * before its clock), and the runner is handed the share {@link #RUNNER_SET_UP_NANOS} before the shared instant,
     * to start its clock at it: the workers' clocks start together.
     */
    private WorkerOutcome runClosed(WorkerJob job, List<RequestSpec> specs, LlmClient client,
                                    RecordStream stream, HazelcastInstance instance, String[] stopReason) {
        ClosedLoopRunner runner = new ClosedLoopRunner(client, COUNTED_BY_COORDINATOR);
        ClosedLoopSettings settings = job.load().closedLoopSettings();
        BooleanSupplier stop = stopAsked(job);
        UUID watch = armStops(job, instance, runner::stop);
        try {
            long[] opened = client.preconnect(ClosedLoopRunner.connectionsToOpen(settings));
            Long target = awaitStart(job, instance, stop, opened);
            if (target == null) return stoppedBeforeStart(job, 0, opened);
            stream.startsAt(target);
            awaitUntil(target - RUNNER_SET_UP_NANOS, stop);
            if (stop.getAsBoolean()) return stoppedBeforeStart(job, System.nanoTime() - target, opened);
            ClosedLoopResult r = runner.runAt(target, specs, settings, stream, stop);
            return new WorkerOutcome(job.workerId(), r.clockStartNanos() - target, r.durationNanos(),
                    r.requestsSent(), r.timedOut(), r.stopped(), tagged(r.timeline(), job), 0, 0, Double.NaN,
                    Double.NaN, r.requestsSent(), taggedRecords(r.warmupRecords(), job), r.measureStartOffsetNanos(),
                    0, r.clientOverhead(), concat(opened, r.preconnectNanos()));
        } finally {
            stopReason[0] = disarmStops(job, instance, watch);
        }
    }

    /** An open loop, as {@link #runClosed}: the schedule's origin is the shared instant. */
    private WorkerOutcome runOpen(WorkerJob job, List<RequestSpec> specs, LlmClient client,
                                  RecordStream stream, HazelcastInstance instance, String[] stopReason) {
        OpenLoopRunner runner = new OpenLoopRunner(client, COUNTED_BY_COORDINATOR);
        OpenLoopSettings settings = job.load().openLoopSettings();
        ArrivalSchedule schedule = job.load().schedule();
        BooleanSupplier stop = stopAsked(job);
        UUID watch = armStops(job, instance, runner::stop);
        try {
            long[] opened = client.preconnect(OpenLoopRunner.connectionsToOpen(settings, schedule));
            Long target = awaitStart(job, instance, stop, opened);
            if (target == null) return stoppedBeforeStart(job, 0, opened);
            stream.startsAt(target);
            awaitUntil(target - RUNNER_SET_UP_NANOS, stop);
            if (stop.getAsBoolean()) return stoppedBeforeStart(job, System.nanoTime() - target, opened);
            OpenLoopResult r = runner.runAt(target, specs, settings, schedule, stream, stop);
            return new WorkerOutcome(job.workerId(), r.clockStartNanos() - target, r.durationNanos(),
                    r.requestsSent(), r.timedOut(), r.stopped(), tagged(r.timeline(), job), r.arrivalsNotSent(),
                    r.maxBacklog(), r.scheduledRequestsPerSecond(), r.achievedSendRequestsPerSecond(),
                    r.measuredArrivals(), taggedRecords(r.warmupRecords(), job), r.measureStartOffsetNanos(),
                    r.warmupArrivals(), r.clientOverhead(), concat(opened, r.preconnectNanos()));
        } finally {
            stopReason[0] = disarmStops(job, instance, watch);
        }
    }

    /** Whether the share of {@code job} is to stop: the coordinator's stop or its leaving, or this worker's leave. */
    private BooleanSupplier stopAsked(WorkerJob job) {
        return () -> leaving != null || stopped.containsKey(job.jobId());
    }

    /**
     * Arms the share's stops with {@code stopRunner}: the coordinator's stop ({@link #stop}), the coordinator leaving
     * the cluster, this worker leaving ({@link #leave}); returns the membership watch {@link #disarmStops} removes.
     */
    private UUID armStops(WorkerJob job, HazelcastInstance instance, Runnable stopRunner) {
        UUID watch = stopWhenCoordinatorLeaves(instance, job.coordinator(), () -> {
            stopped.putIfAbsent(job.jobId(), "the coordinator left the cluster");
            stopRunner.run();
        });
        stops.put(job.jobId(), stopRunner);
        if (leaving != null) stopRunner.run(); // a leave that came before the put found nothing to stop
        return watch;
    }

    /** Undoes {@link #armStops} at the share's end; returns what stopped the share, or null. */
    private String disarmStops(WorkerJob job, HazelcastInstance instance, UUID watch) {
        instance.getCluster().removeMembershipListener(watch);
        stops.remove(job.jobId());
        starts.remove(job.jobId());
        return stopped.remove(job.jobId());
    }

    /**
     * The requests the share sends: its specs, or, for fresh prompts, an endless sequence of its own that starts with
     * them and continues with its parts of the run's later batches, taken from the coordinator, numbered as the
     * coordinator numbered them; those the runner draws before its clock (its sends in flight at once, and some) are
     * taken now, before the shared start. What the sequence finds (sends that waited, repeats) goes to
     * {@code prompts}, for the outcome: the coordinator tells it, summed over the workers.
     */
    private List<RequestSpec> requests(WorkerJob job, HazelcastInstance instance, Member coordinator,
                                       Consumer<FreshRequests.Tally> prompts) {
        if (job.promptSlice() == null) return job.specs();
        int partSize = Math.max(1, job.specs().size());
        int drawnBeforeClock = 2 * job.client().maxConnections() + 64; // FreshRequests draws about this many ahead
        int batchesBeforeClock = (Math.max(0, drawnBeforeClock - partSize) + partSize - 1) / partSize; // after its own
        CoordinatorBatches later = new CoordinatorBatches(instance.getExecutorService(ClusterNode.EXECUTOR),
                coordinator, job.jobId(), job.promptSlice(), Math.max(1, batchesBeforeClock));
        later.prefetch(batchesBeforeClock);
        return FreshRequests.part(job.specs(), later, prompts);
    }

    /**
     * Tells the coordinator the share is set up (with the connect times of the connections {@code opened} for it,
     * counted even if this worker dies later), then waits for the start instant it fixes once every worker is;
     * returns the instant on this machine's {@link System#nanoTime()}, or null when the share was stopped first.
     */
    private Long awaitStart(WorkerJob job, HazelcastInstance instance, BooleanSupplier stop, long[] opened) {
        CompletableFuture<Long> start = starts.computeIfAbsent(job.jobId(), id -> new CompletableFuture<>());
        instance.getExecutorService(ClusterNode.EXECUTOR).executeOnMember(new ShareReady(job.jobId(), job.workerId(),
                opened), member(instance, job.coordinator()));
        while (!stop.getAsBoolean()) {
            try {
                return startTargetNanos(start.get(STOP_CHECK_NANOS, TimeUnit.NANOSECONDS));
            } catch (TimeoutException e) {
                // look for a stop, then wait on
            } catch (ExecutionException e) {
                throw new IllegalStateException(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        return null;
    }

    /** The start instant of this worker's share of run {@code jobId}, on this machine's wall clock. */
    void start(String jobId, long startEpochMicros) {
        // kept even when it comes first: the coordinator starts without a worker slower than its wait, which then
        // starts late (its start lag says so) instead of waiting for an instant already sent
        starts.computeIfAbsent(jobId, id -> new CompletableFuture<>()).complete(startEpochMicros);
    }

    /** Stops this worker's share of run {@code jobId}, now or, when it has not started yet, before it starts. */
    void stop(String jobId) {
        stopped.putIfAbsent(jobId, "the coordinator stopped it");
        Runnable stop = stops.get(jobId);
        if (stop != null) stop.run();
    }

    private static WorkerOutcome stoppedBeforeStart(WorkerJob job, long lag, long[] opened) {
        return new WorkerOutcome(job.workerId(), lag, 0, 0, false, true, List.of(), 0, 0, Double.NaN, Double.NaN, 0,
                List.of(), 0, 0, null, opened);
    }

    /** The connect times of the connections opened before the shared start, then of any the runner opened. */
    private static long[] concat(long[] first, long[] then) {
        long[] all = Arrays.copyOf(first, first.length + then.length);
        System.arraycopy(then, 0, all, first.length, then.length);
        return all;
    }

    /**
     * The shared start, given on this machine's wall clock, on its {@link System#nanoTime()}: converted once, through
     * an {@link EpochClock#anchor()} (a pair read with nothing between its reads: a single pair with a preemption
     * between them moved this worker's whole part by the preemption), so the wait and every offset after it are
     * measured by {@code nanoTime} only.
     */
    static long startTargetNanos(long startEpochMicros) {
        return EpochClock.anchor().nanoTimeOf(startEpochMicros);
    }

    /** Waits until {@code target} (this machine's {@link System#nanoTime()}), or until {@code stopped}. */
    static void awaitUntil(long target, BooleanSupplier stopped) {
        long remaining;
        while ((remaining = target - System.nanoTime()) > 0 && !stopped.getAsBoolean()) {
            LockSupport.parkNanos(Math.min(remaining, STOP_CHECK_NANOS));
        }
    }

    /** A coordinator that dies mid-run gets no more records: the share stops instead of running on. */
    private static UUID stopWhenCoordinatorLeaves(HazelcastInstance instance, UUID coordinator, Runnable stop) {
        return instance.getCluster().addMembershipListener(new MembershipListener() {
            @Override
            public void memberAdded(MembershipEvent event) {
            }

            @Override
            public void memberRemoved(MembershipEvent event) {
                if (event.getMember().getUuid().equals(coordinator)) stop.run();
            }
        });
    }

    private static Member member(HazelcastInstance instance, UUID uuid) {
        for (Member m : instance.getCluster().getMembers()) {
            if (m.getUuid().equals(uuid)) return m;
        }
        throw new IllegalStateException("the coordinator " + uuid + " is no longer in the cluster");
    }

    /** The record as the coordinator keeps it: with this worker's id. */
    static ScheduledRecord tagged(ScheduledRecord record, WorkerJob job) {
        return record.withRecord(record.record().withWorkerId(job.workerId()));
    }

    private static List<RequestRecord> taggedRecords(List<RequestRecord> records, WorkerJob job) {
        return records.stream().map(r -> r.withWorkerId(job.workerId())).toList();
    }

    private static List<ScheduledRecord> tagged(List<ScheduledRecord> timeline, WorkerJob job) {
        List<ScheduledRecord> out = new ArrayList<>(timeline.size());
        for (ScheduledRecord r : timeline) {
            if (!r.warmup()) out.add(tagged(r, job));
        }
        return out;
    }
}

package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.engine.overhead.ClientOverheadMonitor;
import io.llmperf4j.model.ClientTokenCount;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * An open loop: requests are sent at the intended times of a precomputed, seeded {@link ArrivalSchedule}, whether or
 * not earlier ones have finished, so a slow server faces a growing queue instead of a politely waiting client.
 *
 * <p>Threads. A dedicated pacer thread ({@code llmperf4j-pacer}, a platform thread, never a Netty thread) walks the
 * schedule: it parks until shortly before each deadline and spins the last {@value #SPIN_NANOS} ns, so the send time
 * does not drift with timer slack; deadlines are absolute ({@code start + offset}), so lateness never accumulates.
 * It only calls {@link LlmClient#send}, which never blocks on the network. The calling thread collects records:
 * it counts output tokens (a tokenizer may be slow, and must not delay sends), calls the listener and watches the
 * timeout, as {@link ClosedLoopRunner} does.
 *
 * <p>Concurrency cap. With {@link OpenLoopSettings#maxConcurrency()}, an arrival that finds the cap full waits in
 * FIFO order (the pacer blocks on it, later arrivals queue behind it) and is sent as soon as a request ends; none is
 * dropped. Its latency from the intended send includes the wait ({@link ScheduledRecord#ttftFromIntendedNanos()}).
 * Before the clock starts, the client is asked to open as many connections as the cap, or without one as the first
 * second of the schedule sends ({@link LlmClient#preconnect}); their connect times are in
 * {@link OpenLoopResult#preconnectNanos()}.
 *
 * <p>End. After the last arrival is sent the runner waits for the requests in flight. At the timeout, or on
 * {@link #stop()}, sending stops, requests in flight are cancelled and recorded as CANCELLED (as in the closed loop),
 * and arrivals never sent are counted in {@link OpenLoopResult#arrivalsNotSent()}. The client's own overhead is
 * watched during the run ({@link ClientOverheadMonitor}) and kept in the result. One run at a time per runner.
 */
public final class OpenLoopRunner {

    /** The last stretch before a deadline is spun: {@code parkNanos} wakes tens of microseconds late. */
    static final long SPIN_NANOS = 150_000L;
    /** The schedule's origin is this far after the call, so starting the pacer thread is not counted as lag. */
    static final long START_LEAD_NANOS = 2_000_000L;
    /** Without a concurrency cap, connections are opened beforehand for the arrivals of this first stretch. */
    static final long PRECONNECT_WINDOW_NANOS = 1_000_000_000L;
    /** ... and at most this many. */
    static final int PRECONNECT_UNCAPPED_MAX = 1024;
    /** Longest single park while waiting for a slot (a completion wakes the pacer earlier). */
    private static final long SLOT_PARK_NANOS = 10_000_000L;

    private static final int STOP_CODE = -1;
    private static final int PACER_DONE_CODE = -2;
    private static final Finished STOP = new Finished(STOP_CODE, null, null);
    private static final Finished PACER_DONE = new Finished(PACER_DONE_CODE, null, null);

    private final LlmClient client;
    private final TokenCounter tokenCounter;
    private final RunGuard<Finished> guard = new RunGuard<>(STOP);

    public OpenLoopRunner(LlmClient client, TokenCounter tokenCounter) {
        this.client = Objects.requireNonNull(client, "client");
        this.tokenCounter = Objects.requireNonNull(tokenCounter, "tokenCounter");
    }

    public OpenLoopResult run(List<RequestSpec> specs, OpenLoopSettings settings) {
        return run(specs, settings, RecordListener.NONE);
    }

    /**
     * Runs the settings' schedule until every arrival is sent and recorded, the timeout elapses, or {@link #stop()}.
     *
     * @param specs    the M prepared requests; arrival {@code i} sends spec {@code i mod M} (a
     *                 {@link WarmupPrompts} workload: warmup arrivals send their own, measured arrival {@code j} spec
     *                 {@code j mod M})
     * @param listener told about each record (warmup ones flagged), on this thread
     * @throws IllegalArgumentException when {@code specs} is empty or the schedule is too long
     * @throws IllegalStateException    when this runner is already running
     */
    public OpenLoopResult run(List<RequestSpec> specs, OpenLoopSettings settings, RecordListener listener) {
        return run(specs, settings, listener, () -> false);
    }

    /** As {@link #run(List, OpenLoopSettings, RecordListener)}; ends at once when {@code stopped} is already true. */
    OpenLoopResult run(List<RequestSpec> specs, OpenLoopSettings settings, RecordListener listener,
                       BooleanSupplier stopped) {
        Objects.requireNonNull(settings, "settings");
        return run(specs, settings, settings.schedule(), listener, stopped);
    }

    /**
     * As {@link #run(List, OpenLoopSettings, RecordListener)}, sending at the offsets of {@code schedule} instead of
     * the settings' own (a load worker's part of one shared schedule); the settings give the timeout and the cap.
     */
    public OpenLoopResult run(List<RequestSpec> specs, OpenLoopSettings settings, ArrivalSchedule schedule,
                              RecordListener listener) {
        return run(specs, settings, schedule, listener, () -> false);
    }

    /** The same, stopping early when {@code stopped} says so (a replayed trace's timestamps use it). */
    OpenLoopResult run(List<RequestSpec> specs, OpenLoopSettings settings, ArrivalSchedule schedule,
                       RecordListener listener, BooleanSupplier stopped) {
        return run(specs, settings, schedule, listener, stopped, OptionalLong.empty());
    }

    /**
     * As {@link #run(List, OpenLoopSettings, ArrivalSchedule, RecordListener)}, with the schedule's origin at
     * {@code startNanos} (on {@link System#nanoTime()}): a load worker's share starts at a cluster's shared instant.
     * Everything before the clock (the connections, the pacer thread) is done first, and the client's watch starts
     * at the origin; when the instant is nearer than that by then, the origin is as soon as it can be
     * ({@link OpenLoopResult#clockStartNanos()} says where). Ends at once, sending nothing, when {@code stopped} is
     * true at the call or {@link #stop()} comes first.
     */
    public OpenLoopResult runAt(long startNanos, List<RequestSpec> specs, OpenLoopSettings settings,
                                ArrivalSchedule schedule, RecordListener listener, BooleanSupplier stopped) {
        return run(specs, settings, schedule, listener, stopped, OptionalLong.of(startNanos));
    }

    private OpenLoopResult run(List<RequestSpec> specs, OpenLoopSettings settings, ArrivalSchedule schedule,
                               RecordListener listener, BooleanSupplier stopped, OptionalLong startAt) {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(schedule, "schedule");
        List<RequestSpec> measured = WarmupPrompts.measuredOf(specs);
        List<RequestSpec> prompts = List.copyOf(measured);
        if (prompts.isEmpty()) throw new IllegalArgumentException("specs must not be empty");
        guard.begin();
        // fresh requests: drawn ahead from here, before the clock, and on a thread of their own during the run
        try (FreshRequests.Supply fresh = measured instanceof FreshRequests f
                ? f.open(FreshRequests.aheadFor(freshAhead(settings, schedule))) : null;
             FreshRequests.Supply warmupPrompts = WarmupPrompts.openWarmup(specs, settings.warmup(),
                     Math.min(schedule.warmupArrivals(), FreshRequests.aheadFor(freshAhead(settings, schedule))))) {
            Run run = new Run(prompts, fresh, warmupPrompts, settings, schedule,
                    listener == null ? RecordListener.NONE : listener);
            guard.attach(run.finished, stopped.getAsBoolean());
            // the client's watch: from here for a run that starts now, from the instant for one that waits for it
            ClientOverheadMonitor[] overhead = {startAt.isEmpty() ? ClientOverheadMonitor.start(client) : null};
            try {
                OpenLoopResult result = run.execute(startAt, () -> overhead[0] = ClientOverheadMonitor.start(client));
                return result.withClientOverhead(overhead[0].stop());
            } finally {
                if (overhead[0] != null) overhead[0].close();
            }
        } finally {
            guard.end();
        }
    }

    /** Sends that can come at once: the cap, else two seconds of arrivals at the mean rate, at most the schedule. */
    private static int freshAhead(OpenLoopSettings settings, ArrivalSchedule schedule) {
        if (settings.maxConcurrency().isPresent()) return settings.maxConcurrency().getAsInt();
        return (int) Math.min(schedule.size(), Math.ceil(2 * settings.requestsPerSecond()));
    }

    /** Ends the current run early, from any thread: sending stops, in-flight requests are cancelled and recorded. */
    public void stop() {
        guard.stop();
    }

    /**
     * Connections a run opens before its clock starts: the concurrency cap of {@code settings}, or without one the
     * arrivals of {@code schedule}'s first {@value #PRECONNECT_WINDOW_NANOS} ns (the requests in flight before the
     * first ones can end and free theirs), at most {@value #PRECONNECT_UNCAPPED_MAX}; the client caps it at its own
     * limit. A load worker opens them itself before a cluster's shared start, so the run finds them open.
     */
    public static int connectionsToOpen(OpenLoopSettings settings, ArrivalSchedule schedule) {
        int arrivals = schedule.size();
        int cap = settings.maxConcurrency().orElse(Integer.MAX_VALUE);
        if (cap != Integer.MAX_VALUE || arrivals == 0) return Math.min(cap, arrivals);
        int n = 0;
        while (n < arrivals && schedule.offsetNanos(n) < schedule.offsetNanos(0) + PRECONNECT_WINDOW_NANOS) n++;
        return Math.max(1, Math.min(n, PRECONNECT_UNCAPPED_MAX));
    }

    /** A request's end (or a control signal), as queued by its completion callback. */
    private record Finished(int arrival, RequestRecord record, Throwable error) {
    }

    /** What the collector needs of a request in flight. */
    private record InFlight(RequestHandle handle, RequestSpec spec, String clientRequestId, long intendedOffsetNanos,
                            long actualOffsetNanos) {
    }

    /** One run: the pacer's state (pacer thread), the collector's state (calling thread), and what they share. */
    private final class Run {
        private final List<RequestSpec> specs;
        /** Each arrival's own request ({@link FreshRequests}) instead of cycling through {@link #specs}; or null. */
        private final FreshRequests.Supply fresh;
        /**
         * The warmup arrivals' own requests ({@link WarmupPrompts}), closed at the first measured arrival; or null:
         * the warmup arrivals cycle through the measured requests.
         */
        private final FreshRequests.Supply warmupPrompts;
        private final OpenLoopSettings settings;
        private final ArrivalSchedule schedule;
        private final long[] offsets;
        private final int cap;
        private final RecordListener listener;

        // shared
        private final BlockingQueue<Finished> finished = new LinkedBlockingQueue<>();
        private final Map<Integer, InFlight> inFlight = new ConcurrentHashMap<>();
        private final AtomicInteger inFlightCount = new AtomicInteger();
        private volatile boolean stopPacing;
        private volatile Thread pacer;
        private long startNanos;

        // pacer-owned; read by the collector after join()
        private int sentTotal;
        private int maxBacklog;
        private long firstMeasuredSendOffset = -1;
        private long lastMeasuredSendOffset = -1;

        // collector-owned
        private final List<RequestRecord> records = new ArrayList<>();
        private final List<RequestRecord> warmupRecords = new ArrayList<>();
        private final List<ScheduledRecord> timeline = new ArrayList<>();
        private boolean timedOut;
        private boolean stopped;

        Run(List<RequestSpec> specs, FreshRequests.Supply fresh, FreshRequests.Supply warmupPrompts,
            OpenLoopSettings settings, ArrivalSchedule schedule, RecordListener listener) {
            this.specs = specs;
            this.fresh = fresh;
            this.warmupPrompts = warmupPrompts;
            this.settings = settings;
            this.schedule = schedule;
            this.offsets = schedule.offsetsNanos();
            this.cap = settings.maxConcurrency().orElse(Integer.MAX_VALUE);
            this.listener = listener;
        }

        /** {@code atInstant}: called at a waited-for origin ({@code startAt}), as the first arrivals are due. */
        OpenLoopResult execute(OptionalLong startAt, Runnable atInstant) {
            long[] preconnect = finished.peek() == STOP ? new long[0]
                    : client.preconnect(connectionsToOpen(settings, schedule));
            long nowEpochMillis = System.currentTimeMillis();
            long now = System.nanoTime();
            startNanos = now + START_LEAD_NANOS;
            if (startAt.isPresent() && startAt.getAsLong() - startNanos > 0) startNanos = startAt.getAsLong();
            long runStartEpochMillis = nowEpochMillis + (startNanos - now) / 1_000_000L;
            long deadline = startNanos + Deadlines.cappedNanos(settings.timeout());
            Thread thread = new Thread(this::pace, "llmperf4j-pacer");
            thread.setDaemon(true);
            thread.setPriority(Thread.MAX_PRIORITY);
            pacer = thread;
            boolean clean = false;
            try {
                if (finished.peek() == STOP) {
                    stopped = true; // stopped before it started: send nothing
                    if (startAt.isPresent()) atInstant.run();
                } else {
                    thread.start();
                    if (startAt.isPresent()) {
                        Deadlines.await(startNanos, () -> finished.peek() == STOP);
                        atInstant.run();
                    }
                    collect(deadline);
                }
                stopPacer();
                cancelAndCollectInFlight();
                clean = true;
            } finally {
                if (!clean) {
                    stopPacer();
                    cancelInFlight(); // a listener or the token counter threw: leave nothing running
                }
            }
            long endNanos = System.nanoTime();
            long endEpochMillis = System.currentTimeMillis();
            long measureStartOffset = schedule.measureStartOffsetNanos();
            long duration = Math.max(0, endNanos - (startNanos + measureStartOffset));
            int measured = schedule.measuredArrivals();
            double scheduledRate = measured < 2 ? Double.NaN
                    : (measured - 1) / ((schedule.lastOffsetNanos() - schedule.offsetNanos(schedule.warmupArrivals()))
                    / 1e9);
            double sendRate = records.size() < 2 || lastMeasuredSendOffset <= firstMeasuredSendOffset ? Double.NaN
                    : (records.size() - 1) / ((lastMeasuredSendOffset - firstMeasuredSendOffset) / 1e9);
            return new OpenLoopResult(records, warmupRecords, timeline,
                    runStartEpochMillis + measureStartOffset / 1_000_000L, endEpochMillis, duration,
                    measureStartOffset, records.size(), timedOut, stopped, settings, schedule.warmupArrivals(),
                    measured, schedule.size() - sentTotal, maxBacklog, scheduledRate, sendRate)
                    .withPreconnect(preconnect).withClockStart(startNanos);
        }

        // ---- pacer thread ----

        private void pace() {
            int n = offsets.length;
            int due = 0; // arrivals [0, due) are due
            int i = 0;
            try {
                for (; i < n; i++) {
                    if (!awaitDeadline(startNanos + offsets[i])) break;
                    if (cap != Integer.MAX_VALUE && !awaitSlot()) break;
                    long actual = System.nanoTime() - startNanos;
                    while (due < n && offsets[due] <= actual) due++;
                    maxBacklog = Math.max(maxBacklog, due - i - 1); // still waiting right after this send
                    send(i, actual);
                }
                if (i < n) { // stopped: what was due and never sent was backlog too
                    long now = System.nanoTime() - startNanos;
                    while (due < n && offsets[due] <= now) due++;
                    maxBacklog = Math.max(maxBacklog, due - i);
                }
            } finally {
                sentTotal = i;
                finished.add(PACER_DONE);
            }
        }

        private boolean awaitDeadline(long deadline) {
            while (true) {
                if (stopPacing) return false;
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) return true;
                if (remaining > SPIN_NANOS) {
                    LockSupport.parkNanos(this, remaining - SPIN_NANOS);
                } else {
                    Thread.onSpinWait();
                }
            }
        }

        /** Waits (FIFO: later arrivals queue behind this one) until fewer than {@code cap} are in flight. */
        private boolean awaitSlot() {
            while (inFlightCount.get() >= cap) {
                if (stopPacing) return false;
                LockSupport.parkNanos(this, SLOT_PARK_NANOS); // a completion unparks us
            }
            return !stopPacing;
        }

        /**
         * The request of {@code arrival}: a warmup arrival's own when the warmup has its own; else the next of the
         * fresh sequence, or the list's, cycled. Measured arrivals after a warmup with its own prompts count from the
         * first measured one, as in the same run without warmup.
         */
        private RequestSpec spec(int arrival, boolean isWarmup) {
            if (isWarmup && warmupPrompts != null) return warmupPrompts.next();
            if (fresh != null) return fresh.next();
            int measured = warmupPrompts != null ? arrival - schedule.warmupArrivals() : arrival;
            return specs.get(measured % specs.size());
        }

        private void send(int arrival, long actualOffset) {
            boolean isWarmup = schedule.isWarmup(arrival);
            RequestSpec spec = spec(arrival, isWarmup);
            if (!isWarmup) {
                if (firstMeasuredSendOffset < 0) {
                    firstMeasuredSendOffset = actualOffset;
                    // the warmup's draws are done: none during the measured window
                    if (warmupPrompts != null) warmupPrompts.close();
                }
                lastMeasuredSendOffset = actualOffset;
            }
            inFlightCount.incrementAndGet();
            RequestHandle handle;
            try {
                handle = client.send(spec);
            } catch (RuntimeException e) {
                inFlightCount.decrementAndGet();
                String id = "unsent-" + arrival;
                inFlight.put(arrival, new InFlight(null, spec, id, offsets[arrival], actualOffset));
                finished.add(new Finished(arrival, failed(spec, id, new Failure(FailureKind.CLIENT_ERROR, -1,
                        "the client refused the request: " + e)), null));
                return;
            }
            // the client's start stamp is the actual send: the body built since the pacer's stamp is send lag
            long sentAt = SendStamps.actualOffset(handle, startNanos, actualOffset);
            if (!isWarmup) lastMeasuredSendOffset = sentAt;
            inFlight.put(arrival, new InFlight(handle, spec, handle.clientRequestId(), offsets[arrival], sentAt));
            handle.completion().whenComplete((record, error) -> {
                inFlightCount.decrementAndGet();
                finished.add(new Finished(arrival, record, error));
                if (cap != Integer.MAX_VALUE) LockSupport.unpark(pacer);
            });
        }

        // ---- calling thread ----

        private void collect(long deadline) {
            boolean pacerDone = false;
            while (!pacerDone || !inFlight.isEmpty()) {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    timedOut = true;
                    return;
                }
                Finished f;
                try {
                    f = finished.poll(remaining, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    stopped = true;
                    return;
                }
                if (f == null) continue;
                if (f.arrival() == STOP_CODE) {
                    stopped = true;
                    return;
                }
                if (f.arrival() == PACER_DONE_CODE) {
                    pacerDone = true;
                    continue;
                }
                ScheduledRecord r = retire(f);
                if (r != null) keep(r);
            }
        }

        private void stopPacer() {
            stopPacing = true;
            Thread t = pacer;
            if (t == null || !t.isAlive()) return;
            LockSupport.unpark(t);
            boolean interrupted = false;
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) Thread.currentThread().interrupt();
        }

        private void cancelAndCollectInFlight() {
            if (inFlight.isEmpty()) return;
            cancelInFlight();
            boolean interrupted = CancelGrace.collect(finished, () -> !inFlight.isEmpty(), f -> {
                if (f.arrival() < 0) return;
                ScheduledRecord r = retire(f);
                if (r != null) keep(r);
            });
            // safety net: a client that never completes a cancelled request still leaves a record
            for (Integer arrival : List.copyOf(inFlight.keySet())) {
                InFlight e = inFlight.get(arrival);
                if (e == null) continue;
                ScheduledRecord r = retire(new Finished(arrival, failed(e.spec(), e.clientRequestId(),
                        new Failure(FailureKind.CANCELLED, -1, "cancelled; the client gave no record within "
                                + CancelGrace.GRACE.toSeconds() + " s")), null));
                if (r != null) keep(r);
            }
            if (interrupted) Thread.currentThread().interrupt();
        }

        private void cancelInFlight() {
            for (InFlight e : inFlight.values()) {
                if (e.handle() != null) {
                    try {
                        e.handle().cancel();
                    } catch (RuntimeException ex) {
                        // best effort: the run is ending either way
                    }
                }
            }
        }

        private ScheduledRecord retire(Finished f) {
            InFlight e = inFlight.remove(f.arrival());
            if (e == null) return null; // already recorded by the safety net
            RequestRecord record = f.record();
            if (record == null) {
                record = failed(e.spec(), e.clientRequestId(), new Failure(FailureKind.CLIENT_ERROR, -1,
                        "the client completed the request without a record: " + f.error()));
            }
            return new ScheduledRecord(record, f.arrival(), e.intendedOffsetNanos(), e.actualOffsetNanos(),
                    schedule.isWarmup(f.arrival()));
        }

        private void keep(ScheduledRecord scheduled) {
            RequestRecord record = scheduled.record();
            ScheduledRecord counted = scheduled.withRecord(ClientTokenCount.count(record, tokenCounter));
            timeline.add(counted);
            (counted.warmup() ? warmupRecords : records).add(counted.record());
            listener.onScheduledRecord(counted);
        }

        private RequestRecord failed(RequestSpec spec, String clientRequestId, Failure failure) {
            Instant now = Instant.now();
            return new RequestRecord(spec.index(), clientRequestId, null,
                    now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000L, RequestRecord.NEVER,
                    RequestRecord.NEVER, RequestRecord.NEVER, 0, null, "", spec.numberInputTokens(), spec.maxTokens(),
                    -1, null, null, null, failure);
        }
    }
}

package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.PreparedRequest;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.engine.overhead.ClientOverheadMonitor;
import io.llmperf4j.model.ClientTokenCount;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;

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
    /** How often the pacer looks again for a request that was not drawn yet (the drawer tells no one). */
    private static final long DRAW_PARK_NANOS = 100_000L;

    private static final int STOP_CODE = -1;
    private static final int PACER_DONE_CODE = -2;
    private static final Finished STOP = new Finished(STOP_CODE, null, null);
    private static final Finished PACER_DONE = new Finished(PACER_DONE_CODE, null, null);

    private final LlmClient client;
    private final TokenCounter tokenCounter;
    private final Duration cancelGrace;
    private final RunGuard<Finished> guard = new RunGuard<>(STOP);
    /**
     * Called on the pacer thread with each arrival's index once it is due, before its send is stamped: a seam that
     * makes the client late on chosen arrivals (a test's stand-in for a pacer kept from the CPU); none by default.
     */
    private volatile IntConsumer beforeSend = pacerDelay(Long.getLong(PACER_DELAY_PROPERTY, 0));

    /**
     * A test seam for whole-command tests (docs/load.md, "Kept up"): the JVM's system property of this name holds a
     * pause in ms made before every send, {@link #beforeSend}'s, so a test can make the client late through the real
     * command without relying on a busy machine. Never set for a real run.
     */
    public static final String PACER_DELAY_PROPERTY = "llmperf4j.test.pacer-delay-ms";

    public OpenLoopRunner(LlmClient client, TokenCounter tokenCounter) {
        this(client, tokenCounter, CancelGrace.GRACE);
    }

    /** With {@code cancelGrace} instead of {@link CancelGrace#GRACE} for the records of cancelled requests. */
    OpenLoopRunner(LlmClient client, TokenCounter tokenCounter, Duration cancelGrace) {
        this.client = Objects.requireNonNull(client, "client");
        this.tokenCounter = Objects.requireNonNull(tokenCounter, "tokenCounter");
        this.cancelGrace = Objects.requireNonNull(cancelGrace, "cancelGrace");
    }

    /** A pause of {@code millis} before each send; nothing for 0 or less. */
    private static IntConsumer pacerDelay(long millis) {
        if (millis <= 0) return i -> { };
        return i -> {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // kept for whoever asked
            }
        };
    }

    /** Sets {@link #beforeSend} for the runs that follow. */
    void beforeEachSend(IntConsumer hook) {
        this.beforeSend = Objects.requireNonNull(hook, "hook");
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
            guard.attach(run.finished, run::stopNow, stopped.getAsBoolean());
            // the client's watch: from here for a run that starts now, from the instant for one that waits for it
            ClientOverheadMonitor[] overhead = {startAt.isEmpty() ? ClientOverheadMonitor.start(client) : null};
            try {
                OpenLoopResult result = run.execute(startAt, () -> overhead[0] = ClientOverheadMonitor.start(client));
                return result.withClientOverhead(overhead[0].stop(result.windowStartNanoTime()));
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

    /**
     * Ends the current run early, from any thread: no request starts once this returns, and the requests still on the
     * wire are cancelled (here, on the calling thread) and recorded; those already answered keep their records.
     */
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

    /**
     * An arrival's request, ready before its time: {@code prepared} by the client, or {@code refused} by it (told when
     * the arrival is due, as a send it refused then would be); {@code wireEnded}: it is over on the wire.
     */
    private record Outgoing(int arrival, boolean isWarmup, RequestSpec spec, AtomicBoolean wireEnded,
                            PreparedRequest prepared, RuntimeException refused) {
        /** For an arrival that will not be sent (the run stopped first). */
        void discard() {
            if (prepared != null) prepared.discard();
        }
    }

    /** What the collector needs of a request in flight; {@code wireEnded}: it is over on the wire. */
    private record InFlight(RequestHandle handle, RequestSpec spec, String clientRequestId, long intendedOffsetNanos,
                            long actualOffsetNanos, AtomicBoolean wireEnded) {
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
        private long runStartEpochMillis;
        /** {@link #stop()} was called: the collector leaves its loop at its next turn, whatever is queued. */
        private volatile boolean stopAsked;
        /** The deadline cut the run short: it closed sending while more was to be sent or on the wire. */
        private volatile boolean deadlineCut;
        /**
         * The stop cut the run short: arrivals were still to be sent or a request was on the wire when it came. A
         * stop after every request had ended on the wire (while their tokens were counted) cut nothing.
         */
        private volatile boolean stopCut;
        private final WindowEnd windowEnd = new WindowEnd();
        /** The handles cancelled (any thread), each once. */
        private final Set<RequestHandle> cancelled = ConcurrentHashMap.newKeySet();
        // guarded by sendLock: a send and the close of sending exclude each other
        private final Object sendLock = new Object();
        private boolean closed;
        private long deadlineNanos;
        /**
         * Arrivals sent (warmup included). A stop or the deadline asks it, not whether the pacer thread still runs: a
         * pacer that sent its last arrival and was not yet scheduled again to exit has nothing left to cut.
         */
        private int sentUnderLock;
        /** When sending was cut (System.nanoTime(): the deadline's own instant, or the stop's); MAX_VALUE until then. */
        private volatile long cutAtNanos = Long.MAX_VALUE;

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
            runStartEpochMillis = nowEpochMillis + (startNanos - now) / 1_000_000L;
            long timeoutNanos = Deadlines.cappedNanos(settings.timeout());
            long deadline = startNanos + timeoutNanos;
            synchronized (sendLock) {
                deadlineNanos = deadline;
            }
            listener.onMeasureStart(startNanos + schedule.measureStartOffsetNanos()); // the summary's start
            Thread thread = new Thread(this::pace, "llmperf4j-pacer");
            thread.setDaemon(true);
            thread.setPriority(Thread.MAX_PRIORITY);
            pacer = thread;
            boolean clean = false;
            DeadlineTimer timer = null;
            try {
                if (finished.peek() == STOP) {
                    stopped = true; // stopped before it started: send nothing
                    if (startAt.isPresent()) atInstant.run();
                } else {
                    thread.start();
                    // on this thread, while the pacer waits for the origin (the pacer checks the deadline itself)
                    timer = DeadlineTimer.at(deadline, timeoutNanos, this::closeAtDeadline);
                    if (startAt.isPresent()) {
                        Deadlines.await(startNanos, () -> finished.peek() == STOP);
                        atInstant.run();
                    }
                    collect(deadline);
                }
                stopPacer();
                tellScheduleCut();
                cancelAndCollectInFlight();
                clean = true;
            } finally {
                if (timer != null) timer.close();
                if (!clean) {
                    stopPacer();
                    cancelInFlight(); // a listener or the token counter threw: leave nothing running
                }
            }
            if (deadlineCut) timedOut = true;
            if (stopAsked && !timedOut) stopped = stopCut;
            long endNanos = Math.max(windowEnd.nanos(), startNanos + schedule.measureStartOffsetNanos());
            long endEpochMillis = runStartEpochMillis + (endNanos - startNanos) / 1_000_000L;
            long measureStartOffset = schedule.measureStartOffsetNanos();
            long duration = Math.max(0, endNanos - (startNanos + measureStartOffset));
            int measured = schedule.measuredArrivals();
            double scheduledRate = schedule.measuredRatePerSecond();
            double sendRate = records.size() < 2 || lastMeasuredSendOffset <= firstMeasuredSendOffset ? Double.NaN
                    : (records.size() - 1) / ((lastMeasuredSendOffset - firstMeasuredSendOffset) / 1e9);
            return new OpenLoopResult(records, warmupRecords, timeline,
                    runStartEpochMillis + measureStartOffset / 1_000_000L, endEpochMillis, duration,
                    measureStartOffset, records.size(), timedOut, stopped, settings, schedule.warmupArrivals(),
                    measured, schedule.size() - sentTotal, maxBacklog, scheduledRate, sendRate)
                    .withPreconnect(preconnect).withClockStart(startNanos);
        }

        /**
         * After the pacer ended: when the run's end (the deadline, a stop) came before the schedule's last arrival was
         * sent, the listener learns how many measured arrivals will never be sent, before the requests cancelled in
         * flight are recorded (a progress line then stops counting them as still to come).
         */
        private void tellScheduleCut() {
            int measured = schedule.measuredArrivals();
            int measuredSent = Math.max(0, sentTotal - schedule.warmupArrivals());
            if (sentTotal >= schedule.size() || measuredSent >= measured) return;
            listener.onScheduleCut(measured - measuredSent, deadlineCut || timedOut);
        }

        /** A request is over on the wire (any thread). */
        private void wireEnded(AtomicBoolean ended, boolean isWarmup) {
            ended.set(true);
            if (isWarmup) return;
            long now = System.nanoTime();
            windowEnd.wireEnded(now);
            listener.onMeasuredWireEnd(now); // the live line's window
        }

        /** No request starts from now on (any thread). */
        private void close() {
            synchronized (sendLock) {
                if (closed) return;
                closed = true;
                listener.onSendingClosed(windowEnd.closed());
            }
        }

        /** {@link #stop()}, on the stopping thread: no more sends, and what is on the wire is cancelled. */
        void stopNow() {
            synchronized (sendLock) { // no send in between: what the stop finds is what it cuts
                Thread t = pacer;
                // not started, or still to send
                boolean arrivalsLeft = !closed && (t == null || t.isAlive() && sentUnderLock < offsets.length);
                if (arrivalsLeft) windowEnd.scheduleCut();
                stopCut = arrivalsLeft || !closed && inFlight.values().stream().anyMatch(e -> !e.wireEnded().get());
            }
            stopAsked = true;
            if (cutAtNanos == Long.MAX_VALUE) cutAtNanos = System.nanoTime();
            stopPacing = true;
            close();
            LockSupport.unpark(pacer);
            cancelInFlight();
        }

        /** The deadline, on the timer's thread: the same as a stop, told apart as a timeout. */
        private void closeAtDeadline() {
            boolean cut;
            boolean arrivalsLeft;
            Thread t = pacer;
            synchronized (sendLock) {
                cut = !closed;
                arrivalsLeft = t != null && t.isAlive() && sentUnderLock < offsets.length;
            }
            if (cut && arrivalsLeft) windowEnd.scheduleCut();
            if (cut && (arrivalsLeft || !inFlight.isEmpty())) deadlineCut = true;
            if (cutAtNanos == Long.MAX_VALUE) cutAtNanos = deadlineNanos; // its instant, not the timer's wake
            stopPacing = true;
            close();
            LockSupport.unpark(t);
            cancelInFlight();
        }

        // ---- pacer thread ----

        private void pace() {
            int n = offsets.length;
            int due = 0; // arrivals [0, due) are due
            int i = 0;
            try {
                for (; i < n; i++) {
                    Outgoing ahead = readyAhead(i); // built before its time: the instant holds the send alone
                    if (!awaitDeadline(startNanos + offsets[i])) {
                        if (ahead != null) ahead.discard();
                        break;
                    }
                    boolean capFull = cap != Integer.MAX_VALUE && inFlightCount.get() >= cap;
                    if (capFull && !awaitSlot()) {
                        if (ahead != null) ahead.discard();
                        break;
                    }
                    beforeSend.accept(i);
                    long actual = System.nanoTime() - startNanos;
                    while (due < n && offsets[due] <= actual) due++;
                    // an arrival that waited for a free slot was due and not sent until now: itself a backlog of one
                    if (capFull) maxBacklog = Math.max(maxBacklog, due - i);
                    maxBacklog = Math.max(maxBacklog, due - i - 1); // still waiting right after this send
                    if (!send(i, actual, ahead)) break;
                }
                if (i < n) { // stopped: what was due before the cut and never sent was backlog too
                    // an arrival due at the cut's very instant (a stop's, or the deadline's, which the pacer may
                    // meet before the timer does) never waited: not a backlog
                    long cut = Math.min(Math.min(System.nanoTime(), cutAtNanos), deadlineNanos) - startNanos;
                    due = i; // recounted to the cut: the loop counted up to its own later instant
                    while (due < n && offsets[due] < cut) due++;
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
         * fresh sequence, or the list's, cycled; null when the run stopped before one was drawn. Measured arrivals
         * after a warmup with its own prompts count from the first measured one, as in the same run without warmup.
         */
        private RequestSpec spec(int arrival, boolean isWarmup) {
            if (isWarmup && warmupPrompts != null) return drawn(warmupPrompts);
            if (fresh != null) return drawn(fresh);
            int measured = warmupPrompts != null ? arrival - schedule.warmupArrivals() : arrival;
            return specs.get(measured % specs.size());
        }

        /**
         * The supply's next request, as the closed loop takes it ({@link FreshRequests.Supply#poll}, then
         * {@link FreshRequests.Supply#pollWaited}): never blocked inside the supply, so a stop or the deadline ends
         * a wait for a slow draw at once (null), and the wait is counted as the closed loop's is.
         */
        private RequestSpec drawn(FreshRequests.Supply supply) {
            RequestSpec spec = supply.poll();
            if (spec != null) return spec;
            long since = System.nanoTime();
            while ((spec = supply.pollWaited(since)) == null) {
                if (stopPacing || supply.isClosed()) return null;
                LockSupport.parkNanos(this, DRAW_PARK_NANOS);
            }
            return spec;
        }

        /**
         * {@code arrival}'s request made ready to go ({@link LlmClient#prepare}) when its prompt is at hand without
         * waiting; null when it is not (a fresh prompt not drawn yet: it is taken at the arrival's time, its wait
         * counted as the closed loop's is) or the client refused it (told at the arrival's time).
         */
        private Outgoing readyAhead(int arrival) {
            boolean isWarmup = schedule.isWarmup(arrival);
            RequestSpec spec = specAtHand(arrival, isWarmup);
            if (spec == null) return null;
            return outgoing(arrival, isWarmup, spec);
        }

        /** {@code spec} prepared by the client for {@code arrival}; a refusal is kept, to be told when it is due. */
        private Outgoing outgoing(int arrival, boolean isWarmup, RequestSpec spec) {
            AtomicBoolean wireEnded = new AtomicBoolean();
            try {
                return new Outgoing(arrival, isWarmup, spec, wireEnded,
                        client.prepare(spec, () -> wireEnded(wireEnded, isWarmup)), null);
            } catch (RuntimeException e) {
                return new Outgoing(arrival, isWarmup, spec, wireEnded, null, e);
            }
        }

        /** As {@link #spec}, without waiting for a draw: null when none is ready. */
        private RequestSpec specAtHand(int arrival, boolean isWarmup) {
            if (isWarmup && warmupPrompts != null) return warmupPrompts.poll();
            if (fresh != null) return fresh.poll();
            return spec(arrival, isWarmup);
        }

        /**
         * Sends {@code arrival} ({@code ahead}: its request ready, or null to take it now), unless sending was closed
         * (a stop, the deadline) or the run stopped while its request was drawn: then false, and the pacer sends no
         * more.
         */
        private boolean send(int arrival, long actualOffset, Outgoing ahead) {
            Outgoing out = ahead;
            if (out == null) {
                boolean isWarmup = schedule.isWarmup(arrival);
                RequestSpec spec = spec(arrival, isWarmup);
                if (spec == null) return false;
                out = outgoing(arrival, isWarmup, spec);
            }
            synchronized (sendLock) {
                if (closed || System.nanoTime() - deadlineNanos >= 0) {
                    if (!closed) { // due at (or after) the deadline, before its timer ran: the timeout cut the schedule
                        windowEnd.scheduleCut();
                        deadlineCut = true;
                    }
                    out.discard();
                    return false;
                }
                send(out, actualOffset);
                sentUnderLock++;
                return true;
            }
        }

        private void send(Outgoing out, long actualOffset) {
            int arrival = out.arrival();
            boolean isWarmup = out.isWarmup();
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
                if (out.refused() != null) throw out.refused();
                handle = out.prepared().send();
            } catch (RuntimeException e) {
                inFlightCount.decrementAndGet();
                String id = "unsent-" + arrival;
                inFlight.put(arrival, new InFlight(null, out.spec(), id, offsets[arrival], actualOffset,
                        out.wireEnded()));
                finished.add(new Finished(arrival, failed(out.spec(), id, actualOffset, new Failure(
                        FailureKind.CLIENT_ERROR, -1, "the client refused the request: " + e)), null));
                return;
            }
            // the client's start stamp is the actual send: any work left between the pacer's stamp and it is send lag
            long sentAt = SendStamps.actualOffset(handle, startNanos, actualOffset);
            if (!isWarmup) lastMeasuredSendOffset = sentAt;
            inFlight.put(arrival, new InFlight(handle, out.spec(), handle.clientRequestId(), offsets[arrival], sentAt,
                    out.wireEnded()));
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
                if (stopAsked) { // a stop closed sending already; whatever is queued is collected below
                    stopped = true;
                    return;
                }
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

        /**
         * Cancels what is still on the wire and keeps every request's record. The records already queued (a backlog
         * the counting has not reached) and those of the cancelled requests are taken first, without counting, so the
         * grace is spent on the wire only; they are counted and kept after, in the order taken. A request whose record
         * has not come by then keeps the one its handle holds, if any: only a request the client never completed is
         * recorded here as CANCELLED.
         */
        private void cancelAndCollectInFlight() {
            close();
            if (inFlight.isEmpty()) return;
            cancelInFlight();
            List<ScheduledRecord> taken = new ArrayList<>();
            boolean interrupted = CancelGrace.collect(finished, () -> !inFlight.isEmpty(), f -> {
                if (f.arrival() < 0) return;
                ScheduledRecord r = retire(f);
                if (r != null) taken.add(r);
            }, cancelGrace);
            Finished f;
            while ((f = finished.poll()) != null) { // queued since the grace's last look
                ScheduledRecord r = f.arrival() < 0 ? null : retire(f);
                if (r != null) taken.add(r);
            }
            // safety net: a client that never completes a cancelled request still leaves a record
            for (Integer arrival : List.copyOf(inFlight.keySet())) {
                InFlight e = inFlight.get(arrival);
                if (e == null) continue;
                RequestRecord completed = CancelGrace.recordOf(e.handle(), e.wireEnded().get());
                ScheduledRecord r = retire(new Finished(arrival, completed != null ? completed
                        : failed(e.spec(), e.clientRequestId(), e.actualOffsetNanos(), new Failure(
                        FailureKind.CANCELLED, -1, "cancelled; the client gave no record within "
                        + cancelGrace.toSeconds() + " s")), null));
                if (r != null) taken.add(r);
            }
            try {
                taken.forEach(this::keep);
            } finally {
                if (interrupted) Thread.currentThread().interrupt();
            }
        }

        private void cancelInFlight() {
            close();
            for (InFlight e : inFlight.values()) {
                if (e.handle() != null && cancelled.add(e.handle())) { // once: a stop, the deadline and the end meet
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
                record = failed(e.spec(), e.clientRequestId(), e.actualOffsetNanos(), new Failure(FailureKind.CLIENT_ERROR, -1,
                        "the client completed the request without a record: " + f.error()));
            }
            return new ScheduledRecord(record, f.arrival(), e.intendedOffsetNanos(), e.actualOffsetNanos(),
                    schedule.isWarmup(f.arrival()), e.handle() == null ? 0 : e.handle().clientDelayNanos());
        }

        private void keep(ScheduledRecord scheduled) {
            RequestRecord record = scheduled.record();
            ScheduledRecord counted = scheduled.withRecord(ClientTokenCount.count(record, tokenCounter));
            timeline.add(counted);
            (counted.warmup() ? warmupRecords : records).add(counted.record());
            listener.onScheduledRecord(counted);
        }

        /** A record of the run's own, stamped at the request's send (never later: it was on the wire since). */
        private RequestRecord failed(RequestSpec spec, String clientRequestId, long sendOffsetNanos, Failure failure) {
            return new RequestRecord(spec.index(), clientRequestId, null,
                    runStartEpochMillis * 1_000L + sendOffsetNanos / 1_000L, RequestRecord.NEVER,
                    RequestRecord.NEVER, RequestRecord.NEVER, 0, null, "", spec.numberInputTokens(), spec.maxTokens(),
                    -1, null, null, null, failure);
        }
    }
}

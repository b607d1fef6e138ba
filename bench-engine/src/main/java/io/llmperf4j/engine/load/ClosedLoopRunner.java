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

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * llmperf's closed loop (§6), run from the calling thread.
 *
 * <p>Slot {@code i} of {@code N} starts at prompt index {@code i mod M} and, after each of its requests ends,
 * advances by {@code N} (mod M); each slot keeps one request in flight and re-sends at once, with no think time.
 * Differences from llmperf, on purpose:
 * <ul>
 *   <li>no over-issue (llmperf #82): a request is sent only while {@code completed + inFlight < maxCompleted}, so the
 *       server sees exactly as many requests as are recorded;</li>
 *   <li>failed requests are records like any other and count as completed (llmperf loses them);</li>
 *   <li>at the timeout, requests in flight are cancelled and recorded as CANCELLED, instead of running on;</li>
 *   <li>an optional {@link Warmup}: the first requests (by count, or sent before a duration has passed) are kept
 *       apart as warmup records; the load goes on without a pause and the measured window starts at the first
 *       measured send; {@code maxCompleted} counts measured records only. A {@link WarmupPrompts} workload's warmup
 *       sends requests of its own, and the measured ones are those of the same run without warmup; otherwise the
 *       warmup takes the first of the workload's and the measurement goes on from there.</li>
 * </ul>
 * Each record's send time is kept in the result's {@link ClosedLoopResult#timeline() timeline} (intended equals
 * actual in a closed loop). Before the clock starts, the client is asked to open one connection per slot
 * ({@link LlmClient#preconnect}); their connect times are in {@link ClosedLoopResult#preconnectNanos()}.
 *
 * <p>A slot re-sends as soon as its request is over on the wire ({@link RequestHandle#whenEnded}), on the thread
 * that saw it end: with the Netty client, the I/O thread that read the last byte writes the next request on the
 * connection it just gave back, as a single-threaded client would. Handing the re-send to this thread instead cost
 * two thread wake-ups between a request's start stamp and its write (0.2-0.5 ms p50, milliseconds at p99 on a busy
 * 2-core machine), all of it inside the measured TTFT. Launch bookkeeping is therefore shared, under the run's lock;
 * a re-send that would nest inside a send on the same thread (a client that ends a request synchronously) waits for
 * this thread instead.
 * Output tokens (and, with a counter that knows offsets, tokens per content event; see {@link ClientTokenCount})
 * are counted with the {@link TokenCounter} on this thread (never an I/O thread) before a record is kept and passed
 * to the listener; this thread otherwise waits on a queue the clients' completion callbacks feed, so no Netty
 * thread ever blocks on it. The client's own overhead is watched during the run ({@link ClientOverheadMonitor}) and
 * kept in the result. One run at a time per runner.
 */
public final class ClosedLoopRunner {

    private static final Message STOP = new Message.Stop();
    /** How long the run's thread waits for more records before it counts and keeps those it has. */
    private static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final LlmClient client;
    private final TokenCounter tokenCounter;
    private final Duration cancelGrace;
    private final RunGuard<Message> guard = new RunGuard<>(STOP);

    public ClosedLoopRunner(LlmClient client, TokenCounter tokenCounter) {
        this(client, tokenCounter, CancelGrace.GRACE);
    }

    /** With {@code cancelGrace} instead of {@link CancelGrace#GRACE} for the records of cancelled requests. */
    ClosedLoopRunner(LlmClient client, TokenCounter tokenCounter, Duration cancelGrace) {
        this.client = Objects.requireNonNull(client, "client");
        this.tokenCounter = Objects.requireNonNull(tokenCounter, "tokenCounter");
        this.cancelGrace = Objects.requireNonNull(cancelGrace, "cancelGrace");
    }

    public ClosedLoopResult run(List<RequestSpec> specs, ClosedLoopSettings settings) {
        return run(specs, settings, RecordListener.NONE);
    }

    /**
     * Runs until {@code maxCompleted} measured records exist, the timeout elapses, or {@link #stop()} is called.
     *
     * @param specs    the M prepared requests (llmperf pre-generates them before the clock starts)
     * @param listener told about each record (warmup ones flagged), on this thread
     * @throws IllegalArgumentException when {@code specs} is empty
     * @throws IllegalStateException    when this runner is already running
     */
    public ClosedLoopResult run(List<RequestSpec> specs, ClosedLoopSettings settings, RecordListener listener) {
        return run(specs, settings, listener, () -> false);
    }

    /** As {@link #run(List, ClosedLoopSettings, RecordListener)}; ends at once when {@code stopped} is already true. */
    ClosedLoopResult run(List<RequestSpec> specs, ClosedLoopSettings settings, RecordListener listener,
                         BooleanSupplier stopped) {
        return run(specs, settings, listener, stopped, OptionalLong.empty());
    }

    /**
     * As {@link #run(List, ClosedLoopSettings, RecordListener)}, with the clock starting at {@code startNanos} (on
     * {@link System#nanoTime()}): a load worker's share starts at a cluster's shared instant. Everything before the
     * clock (the connections) is done first, then the run waits for the instant and starts the client's watch and the
     * clock at it; when that has passed by then, the clock starts at once ({@link ClosedLoopResult#clockStartNanos()}
     * says where). Ends at once, sending nothing, when {@code stopped} is true at the call or {@link #stop()} comes
     * first.
     */
    public ClosedLoopResult runAt(long startNanos, List<RequestSpec> specs, ClosedLoopSettings settings,
                                  RecordListener listener, BooleanSupplier stopped) {
        return run(specs, settings, listener, stopped, OptionalLong.of(startNanos));
    }

    private ClosedLoopResult run(List<RequestSpec> specs, ClosedLoopSettings settings, RecordListener listener,
                                 BooleanSupplier stopped, OptionalLong startAt) {
        Objects.requireNonNull(settings, "settings");
        List<RequestSpec> measured = WarmupPrompts.measuredOf(specs);
        List<RequestSpec> prompts = List.copyOf(measured);
        if (prompts.isEmpty()) throw new IllegalArgumentException("specs must not be empty");
        guard.begin();
        // fresh requests: drawn ahead from here, before the clock, and on a thread of their own during the run
        try (FreshRequests.Supply fresh = measured instanceof FreshRequests f
                ? f.open(FreshRequests.aheadFor(settings.concurrency())) : null;
             FreshRequests.Supply warmupPrompts = WarmupPrompts.openWarmup(specs, settings.warmup(),
                     WarmupPrompts.aheadFor(settings.warmup(), settings.concurrency()))) {
            Run run = new Run(prompts, fresh, warmupPrompts, settings,
                    listener == null ? RecordListener.NONE : listener);
            guard.attach(run.messages, run::stopNow, stopped.getAsBoolean());
            // the client's watch: from here for a run that starts now, from the instant for one that waits for it
            ClientOverheadMonitor[] overhead = {startAt.isEmpty() ? ClientOverheadMonitor.start(client) : null};
            try {
                ClosedLoopResult result = run.execute(Deadlines.cappedNanos(settings.timeout()), startAt,
                        () -> overhead[0] = ClientOverheadMonitor.start(client));
                return result.withClientOverhead(overhead[0].stop(result.windowStartNanoTime()));
            } finally {
                if (overhead[0] != null) overhead[0].close();
            }
        } finally {
            guard.end();
        }
    }

    /**
     * Ends the current run early, from any thread: no request starts once this returns, and the requests still on the
     * wire are cancelled (here, on the calling thread) and recorded; those already answered keep their records.
     */
    public void stop() {
        guard.stop();
    }

    /**
     * The connections a run of {@code settings} opens before its clock starts: one per slot. A load worker opens
     * them itself before a cluster's shared start, so the run finds them open.
     */
    public static int connectionsToOpen(ClosedLoopSettings settings) {
        return settings.concurrency();
    }

    /** What reaches the run's own thread. */
    private sealed interface Message {
        /** A request's record, as queued by its completion callback. */
        record Ended(Launch launch, RequestRecord record, Throwable error) implements Message {
        }

        /**
         * A slot's send found no fresh request drawn ({@link FreshRequests.Supply#poll}) at {@code sinceNanos}: the
         * run's thread sends it once one is, so the send's thread and the run's lock stay free meanwhile, and the
         * run's thread keeps the other slots' records.
         */
        record PromptWanted(int slot, FreshRequests.Supply supply, long sinceNanos) implements Message {
        }

        /** The client refused a re-send made on another thread; the run ends with this exception. */
        record SendFailed(RuntimeException error) implements Message {
        }

        /** {@link #stop()}, or the run was stopped before it began. */
        final class Stop implements Message {
        }
    }

    /** One request sent by a slot. Fields other than {@code ended} are fixed once it is sent. */
    private static final class Launch {
        final int slot;
        final int number;
        final RequestSpec spec;
        /**
         * Its send: the client's start stamp, from which its TTFT and E2E count ({@link SendStamps}), set once the
         * client took it; until then (and where the client gives none) the instant it was handed to the client.
         */
        long sendNanos;
        final boolean warmup;
        RequestHandle handle;
        /** Its slot has moved on (guarded by the run's lock). */
        boolean ended;
        /** Cancelled already: a stop, the deadline and the run's end each cancel what is left (guarded). */
        boolean cancelAsked;
        /** Over on the wire ({@link RequestHandle#whenEnded}), at {@link #wireEndNanos} (guarded by the run's lock). */
        boolean wireEnded;
        long wireEndNanos;

        Launch(int slot, int number, RequestSpec spec, boolean warmup) {
            this.slot = slot;
            this.number = number;
            this.spec = spec;
            this.warmup = warmup;
        }
    }

    /**
     * The state of one run. Launch bookkeeping (which thread may send is said in the class comment) is guarded by
     * this object's lock; records, the timeline and the end flags belong to the calling thread.
     */
    private final class Run {
        /**
         * An array, not the caller's list: the list's class (one of the JDK's immutable lists by its size) would
         * differ between runs, and the compiled send path, specialised for the first, is thrown back to the
         * interpreter at the next run's first send (a class check; C2 recompiled it, 0.3 s, inside a stream ceiling).
         */
        private final RequestSpec[] specs;
        /** Each send's own request ({@link FreshRequests}) instead of cycling through {@link #specs}; or null. */
        private final FreshRequests.Supply fresh;
        /**
         * The warmup's own requests ({@link WarmupPrompts}), closed at the first measured send; or null: the warmup
         * cycles through the measured requests.
         */
        private final FreshRequests.Supply warmupPrompts;
        private final ClosedLoopSettings settings;
        private final int promptCount;
        private final int concurrency;
        private final int maxCompleted;
        private final Warmup warmup;
        private final boolean sendOrder;
        private final RecordListener listener;
        private final BlockingQueue<Message> messages = new LinkedBlockingQueue<>();
        private final List<RequestRecord> records = new ArrayList<>();
        private final List<RequestRecord> warmupRecords = new ArrayList<>();
        private final List<ScheduledRecord> timeline = new ArrayList<>();
        private boolean timedOut;
        private boolean stopped;
        private long startNanos;
        private long startEpochMillis;
        /** {@link #stop()} was called: the run's thread leaves its loop at its next turn, whatever is queued. */
        private volatile boolean stopAsked;
        /** The deadline cut the run short: it closed sending while more was to be sent or on the wire. */
        private volatile boolean deadlineCut;
        /**
         * The stop cut the run short: more was to be sent or on the wire when it came. A stop after every request
         * had ended on the wire (while their tokens were counted) cut nothing: the run is whole, not stopped.
         */
        private volatile boolean stopCut;
        // guarded by this
        private final int[] nextIndex;
        private final Set<Launch> unrecorded = Collections.newSetFromMap(new IdentityHashMap<>());
        private long measureStartNanos = -1;
        /** The listener was told the measured window opened (without a warmup, at the clock's start). */
        private boolean measureAnnounced;
        private long deadlineNanos; // written once by the run's thread, before the first send
        private int launches;
        private int sent;
        private boolean sending;
        private boolean closed;
        private final WindowEnd windowEnd = new WindowEnd();
        /** Slots whose send waits on the run's thread for a request to be drawn ({@link Message.PromptWanted}). */
        private int awaitingPrompt;

        Run(List<RequestSpec> specs, FreshRequests.Supply fresh, FreshRequests.Supply warmupPrompts,
            ClosedLoopSettings settings, RecordListener listener) {
            this.specs = specs.toArray(new RequestSpec[0]);
            this.fresh = fresh;
            this.warmupPrompts = warmupPrompts;
            this.settings = settings;
            this.promptCount = this.specs.length;
            this.concurrency = settings.concurrency();
            this.maxCompleted = settings.maxCompleted().orElse(promptCount);
            this.warmup = settings.warmup();
            this.sendOrder = settings.promptOrder() == ClosedLoopSettings.PromptOrder.SEND_ORDER;
            this.listener = listener;
            this.nextIndex = new int[concurrency];
            for (int slot = 0; slot < concurrency; slot++) nextIndex[slot] = slot % promptCount;
        }

        /** {@code atInstant}: called at a waited-for instant, right before the clock starts. */
        ClosedLoopResult execute(long timeoutNanos, OptionalLong startAt, Runnable atInstant) {
            // opened before the clock starts (the client decides whether it preconnects)
            long[] preconnect = messages.peek() == STOP ? new long[0] : client.preconnect(connectionsToOpen(settings));
            if (startAt.isPresent()) {
                Deadlines.await(startAt.getAsLong(), () -> messages.peek() == STOP);
                atInstant.run();
            }
            startEpochMillis = System.currentTimeMillis();
            startNanos = System.nanoTime();
            synchronized (this) {
                if (warmup instanceof Warmup.None) {
                    // told before any send (a cluster's worker counts its sends as measured from here, the server's
                    // opening scrape is taken here), while the window itself opens at the first send's stamp below:
                    // opened here, it counted the client's time to build and hand over that request (2-15 ms cold)
                    measureAnnounced = true;
                    listener.onMeasureStart(startNanos);
                }
                deadlineNanos = startNanos + timeoutNanos;
            }
            boolean clean = false;
            DeadlineTimer timer = null;
            try {
                if (messages.peek() == STOP) {
                    stopped = true; // stopped before it started: send nothing
                } else {
                    for (int slot = 0; slot < concurrency && send(slot); slot++) {
                        // launched
                    }
                    // after the first sends, which nothing else delays (sends check the deadline themselves)
                    timer = DeadlineTimer.at(deadlineNanos, timeoutNanos, this::closeAtDeadline);
                    runUntil();
                }
                cancelAndCollectInFlight();
                clean = true;
            } finally {
                if (timer != null) timer.close();
                if (!clean) cancelInFlight(); // a listener or the token counter threw: leave nothing running
            }
            if (deadlineCut) timedOut = true;
            if (stopAsked && !stopCut) stopped = false;
            int sentInAll;
            long measureStart;
            long endNanos;
            synchronized (this) {
                sentInAll = sent;
                endNanos = windowEnd.nanos();
                measureStart = measureStartNanos < 0 ? endNanos : measureStartNanos;
                endNanos = Math.max(endNanos, measureStart);
            }
            long measureStartOffset = measureStart - startNanos;
            return new ClosedLoopResult(records, startEpochMillis + measureStartOffset / 1_000_000L,
                    startEpochMillis + (endNanos - startNanos) / 1_000_000L, endNanos - measureStart, sentInAll,
                    timedOut, stopped, warmupRecords, timeline, measureStartOffset, settings)
                    .withPreconnect(preconnect).withClockStart(startNanos);
        }

        private boolean inWarmup(long now) {
            if (warmup instanceof Warmup.ForRequests r) return launches < r.count();
            if (warmup instanceof Warmup.ForDuration d) return now - startNanos < d.nanos();
            return false;
        }

        /**
         * Sends the slot's next request, unless no more are wanted or the run is ending; any thread. llmperf #82:
         * never more measured requests than records to collect.
         *
         * @throws RuntimeException what the client's {@code send} threw; the run then sends no more
         */
        private boolean send(int slot) {
            return send(slot, null, null);
        }

        /**
         * As {@link #send(int)}, with the request the run's thread waited for from {@code takenFrom} (else null), used
         * when the send still takes its request from there. A send whose sequence has none drawn does not wait here,
         * holding the lock every slot's send needs (one slow draw stalled them all, inside the measured window); it
         * hands the wait to the run's thread ({@link Message.PromptWanted}) and counts as in flight meanwhile.
         */
        private synchronized boolean send(int slot, RequestSpec taken, FreshRequests.Supply takenFrom) {
            long now = System.nanoTime();
            if (closed || now - deadlineNanos >= 0) return false;
            boolean isWarmup = measureStartNanos < 0 && inWarmup(now);
            if (!isWarmup && sent >= maxCompleted) return false;
            FreshRequests.Supply supply = isWarmup && warmupPrompts != null ? warmupPrompts : fresh;
            RequestSpec spec = null;
            if (supply != null) {
                spec = taken != null && takenFrom == supply ? taken : supply.poll();
                if (spec == null) {
                    awaitingPrompt++;
                    messages.add(new Message.PromptWanted(slot, supply, now));
                    return true;
                }
            }
            boolean firstMeasured = !isWarmup && measureStartNanos < 0;
            int number = launches++;
            Launch launch = new Launch(slot, number, spec != null ? spec : listed(slot, number), isWarmup);
            sending = true;
            try {
                // the timeline's send is where the request goes to the client, not where the slot freed: the prompt
                // taken and the body built in between would make every offset early (and every end, send + E2E)
                long handedNanos = System.nanoTime();
                launch.sendNanos = handedNanos;
                launch.handle = client.send(launch.spec, () -> moveOn(launch));
                launch.sendNanos = startNanos + SendStamps.actualOffset(launch.handle, startNanos,
                        handedNanos - startNanos);
                if (firstMeasured) {
                    // the window opens at the first measured send, the very stamp its record counts from (no other
                    // send can come between: a send from within client.send waits for this one)
                    measureStartNanos = launch.sendNanos;
                    if (!measureAnnounced) listener.onMeasureStart(launch.sendNanos); // the live line's clock
                }
                unrecorded.add(launch);
                if (!isWarmup) sent++;
                launch.handle.completion().whenComplete((record, error) ->
                        messages.add(new Message.Ended(launch, record, error)));
            } catch (RuntimeException e) {
                closed = true;
                throw e;
            } finally {
                sending = false;
            }
            // the warmup's draws are done: none during the measured window
            if (firstMeasured && warmupPrompts != null) warmupPrompts.close();
            return true;
        }

        /**
         * The request of send {@code number} by {@code slot} when it comes from the list rather than a sequence (the
         * warmup's own, or the fresh one): the slot's next index, or by send order. The measured requests of a warmup
         * with its own prompts count from the first measured send, as in the same run without warmup.
         */
        private RequestSpec listed(int slot, int number) {
            if (!sendOrder) return specs[nextIndex[slot]];
            return specs[(warmupPrompts != null ? sent : number) % promptCount];
        }

        /**
         * The launch is over on the wire, or its record came first: its slot advances and re-sends, once. Nested
         * inside a send on the same thread, it leaves the re-send to the run's thread, which calls it again when it
         * takes the record.
         */
        private synchronized void moveOn(Launch launch) {
            if (!launch.wireEnded) {
                launch.wireEnded = true;
                launch.wireEndNanos = System.nanoTime();
                if (!launch.warmup) {
                    windowEnd.wireEnded(launch.wireEndNanos);
                    listener.onMeasuredWireEnd(launch.wireEndNanos); // the live line's window
                }
            }
            if (launch.ended || sending) return;
            launch.ended = true;
            // a warmup request of its own took none of the slot's measured requests
            if (!(launch.warmup && warmupPrompts != null)) {
                nextIndex[launch.slot] = (nextIndex[launch.slot] + concurrency) % promptCount;
            }
            try {
                send(launch.slot);
            } catch (RuntimeException e) {
                messages.add(new Message.SendFailed(e));
            }
        }

        /**
         * Takes each record as it ends and re-sends for its slot at once, but counts and keeps the records in the
         * run's idle time: once no record has come for {@link #QUIET_NANOS}, or a slot's worth are waiting. Records
         * of one wave end together (same lengths, same pace), and counting them at once took a core at the very
         * moment the server was taking in the wave's new requests: on a 2-core machine shared with the server, the
         * server's receipt of them came 0.6-1.2 ms after the start stamps at 32 streams instead of 0.3.
         */
        private void runUntil() {
            ArrayDeque<ScheduledRecord> uncounted = new ArrayDeque<>();
            ArrayDeque<Message.PromptWanted> wanting = new ArrayDeque<>(); // rare: drawing fell behind
            try {
                while (inFlight() > 0) {
                    if (stopAsked) { // a stop closed sending already; whatever is queued is collected below
                        stopped = true;
                        return;
                    }
                    if (!wanting.isEmpty()) sendDrawn(wanting);
                    long remaining = deadlineNanos - System.nanoTime();
                    if (remaining <= 0) {
                        timedOut = true;
                        return;
                    }
                    Message m;
                    try {
                        // while sends want a request, look again every QUIET_NANOS (the drawer tells no one)
                        m = messages.poll(uncounted.isEmpty() && wanting.isEmpty() ? remaining
                                : Math.min(remaining, QUIET_NANOS), TimeUnit.NANOSECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        stopped = true;
                        return;
                    }
                    if (m == null) {
                        keepAll(uncounted); // quiet: nothing else wants the CPU now
                        continue;
                    }
                    if (m == STOP) {
                        stopped = true;
                        return;
                    }
                    if (m instanceof Message.SendFailed failed) throw failed.error();
                    if (m instanceof Message.PromptWanted wanted) {
                        wanting.add(wanted);
                        continue;
                    }
                    Message.Ended ended = (Message.Ended) m;
                    moveOn(ended.launch()); // re-send before the bookkeeping below, like a real user (once per launch)
                    uncounted.add(record(ended));
                    if (uncounted.size() >= concurrency) keepAll(uncounted); // never idle (a ceiling): a wave at a time
                }
                if (stopAsked) stopped = true; // a stop that closed sending before anything was left on the wire
            } finally {
                keepAll(uncounted); // every way out: the records taken are kept before anything else happens
            }
        }

        /**
         * Sends, in the order they asked, the wanting slots' requests drawn by now; a slot whose sequence was closed
         * meanwhile (the warmup's, at the first measured send) sends anew. Never waits: this thread keeps the records.
         */
        private void sendDrawn(ArrayDeque<Message.PromptWanted> wanting) {
            Message.PromptWanted wanted;
            while ((wanted = wanting.peekFirst()) != null) {
                RequestSpec spec = wanted.supply().pollWaited(wanted.sinceNanos());
                if (spec == null && !wanted.supply().isClosed()) return;
                wanting.pollFirst();
                synchronized (this) {
                    if (closed) return; // a stop or the deadline: close() gave up every wait
                    awaitingPrompt--;
                }
                send(wanted.slot(), spec, wanted.supply());
            }
        }

        /** Keeps them in order; each leaves the queue before it is kept, so none is kept twice when one throws. */
        private void keepAll(ArrayDeque<ScheduledRecord> uncounted) {
            ScheduledRecord record;
            while ((record = uncounted.pollFirst()) != null) keep(record);
        }

        /** Requests sent and not yet recorded, and sends waiting for their request to be drawn. */
        private synchronized int inFlight() {
            return unrecorded.size() + awaitingPrompt;
        }

        /**
         * Cancels what is still on the wire and keeps every launch's record. The records already queued (a backlog
         * the counting has not reached) and those of the cancelled requests are taken first, without counting, so the
         * grace is spent on the wire only; they are counted and kept after, in the order taken. A launch whose record
         * has not come by then keeps the one its handle holds, if any: only a request the client never completed is
         * recorded here as CANCELLED.
         */
        private void cancelAndCollectInFlight() {
            if (close().isEmpty()) return;
            cancelInFlight();
            List<ScheduledRecord> taken = new ArrayList<>();
            boolean interrupted = CancelGrace.collect(messages, () -> inFlight() > 0, m -> {
                if (m instanceof Message.Ended ended) taken.add(record(ended));
            }, cancelGrace);
            Message m;
            while ((m = messages.poll()) != null) { // queued since the grace's last look
                if (m instanceof Message.Ended ended && isUnrecorded(ended.launch())) taken.add(record(ended));
            }
            // safety net: a client that never completes a cancelled request still leaves a record
            for (Launch launch : close()) {
                boolean wireEnded;
                synchronized (this) {
                    wireEnded = launch.wireEnded;
                }
                RequestRecord completed = CancelGrace.recordOf(launch.handle, wireEnded);
                taken.add(record(new Message.Ended(launch, completed != null ? completed : unanswered(launch), null)));
            }
            try {
                taken.forEach(this::keep);
            } finally {
                if (interrupted) Thread.currentThread().interrupt();
            }
        }

        private synchronized boolean isUnrecorded(Launch launch) {
            return unrecorded.contains(launch);
        }

        /** Closes sending and cancels each launch without a record yet, once (the lock is not held while cancelling). */
        private void cancelInFlight() {
            List<Launch> toCancel = new ArrayList<>();
            synchronized (this) {
                for (Launch launch : close()) {
                    if (!launch.cancelAsked) {
                        launch.cancelAsked = true;
                        toCancel.add(launch);
                    }
                }
            }
            toCancel.forEach(ClosedLoopRunner::cancel);
        }

        /** {@link #stop()}, on the stopping thread: no more sends, and what is on the wire is cancelled. */
        void stopNow() {
            if (stillGoing()) stopCut = true;
            stopAsked = true;
            cancelInFlight();
        }

        /** The deadline, on the timer's thread: the same as a stop, told apart as a timeout. */
        private void closeAtDeadline() {
            if (stillGoing()) deadlineCut = true;
            cancelInFlight();
        }

        /** Whether sending is open with more to send, or a request is still on the wire: a close now cuts the run. */
        private synchronized boolean stillGoing() {
            return !closed && (sent < maxCompleted || awaitingPrompt > 0 || unrecorded.stream()
                    .anyMatch(launch -> !launch.wireEnded));
        }

        /**
         * No more sends from any thread, from now on; returns the launches without a record yet. The requests the
         * caller then cancels end here for the measured window ({@link WindowEnd}).
         */
        private synchronized List<Launch> close() {
            if (!closed) {
                closed = true;
                listener.onSendingClosed(windowEnd.closed());
            }
            awaitingPrompt = 0; // never sent
            return new ArrayList<>(unrecorded);
        }

        private ScheduledRecord record(Message.Ended ended) {
            Launch launch = ended.launch();
            RequestRecord record = ended.record();
            if (record == null) {
                record = failed(launch, new Failure(FailureKind.CLIENT_ERROR, -1,
                        "the client completed the request without a record: " + ended.error()));
            }
            long sendOffset = launch.sendNanos - startNanos;
            synchronized (this) {
                unrecorded.remove(launch);
            }
            return new ScheduledRecord(record, launch.number, sendOffset, sendOffset, launch.warmup);
        }

        private void keep(ScheduledRecord scheduled) {
            RequestRecord record = scheduled.record();
            ScheduledRecord counted = scheduled.withRecord(ClientTokenCount.count(record, tokenCounter));
            timeline.add(counted);
            (counted.warmup() ? warmupRecords : records).add(counted.record());
            listener.onScheduledRecord(counted);
        }

        private RequestRecord unanswered(Launch launch) {
            return failed(launch, new Failure(FailureKind.CANCELLED, -1,
                    "cancelled; the client gave no record within " + cancelGrace.toSeconds() + " s"));
        }

        /** A record of the run's own for the launch, stamped at its send (never later: it was on the wire since). */
        private RequestRecord failed(Launch launch, Failure failure) {
            RequestSpec spec = launch.spec;
            long sentMicros = startEpochMillis * 1_000L + (launch.sendNanos - startNanos) / 1_000L;
            return new RequestRecord(spec.index(), launch.handle.clientRequestId(), null, sentMicros,
                    RequestRecord.NEVER,
                    RequestRecord.NEVER, RequestRecord.NEVER, 0, null, "", spec.numberInputTokens(), spec.maxTokens(),
                    -1, null, null, null, failure);
        }
    }

    private static void cancel(Launch launch) {
        try {
            launch.handle.cancel();
        } catch (RuntimeException e) {
            // best effort: the run is ending either way
        }
    }
}

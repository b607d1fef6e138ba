package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.PreparedRequest;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.engine.overhead.ClientOverheadMonitor;
import io.llmperf4j.model.ChatMessage;
import io.llmperf4j.model.ClientTokenCount;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * Runs a {@link PacedWorkload} of multi-turn sessions. Each turn is sent with the session's history: its system
 * prompt, the earlier user turns and the server's actual replies (the text the client received), after the
 * workload's think time following the previous reply. A failed turn ends its session (there is no reply to build
 * on). Its turns not yet sent are not resent elsewhere nor lost: once every session has started, they start as a
 * session of their own (a new one: empty history, id {@code <session>~t<turn>}, each turn keeping its place in the
 * workload's session, its records tagged with that session) before any session is replayed, so a failure never
 * makes the run resend a prompt. In an open loop a rest is no arrival: it starts when its failed turn ended (or when
 * the last session started, if later) without taking one of the schedule's, so a request budget's one arrival per
 * session leaves room for it; a trace's rests are not sent.
 *
 * <ul>
 *   <li>Closed loop ({@link ClosedLoopSettings}): {@code concurrency} sessions are in flight; when one ends, the next
 *       session starts at once (after the last, the workload's further sessions: {@link PacedWorkload#start}, fresh
 *       ones or its own again, their ids suffixed {@code ~k}).</li>
 *   <li>Open loop ({@link OpenLoopSettings}): arrival {@code i} of the schedule starts session {@code i}; with a
 *       request budget ({@code maxRequests}) of the workload's requests only the first arrivals are used, one per
 *       session; with a larger budget or a duration arrivals go on starting the workload's further sessions
 *       ({@link PacedWorkload#start}) until the budget is spent or the time is up. A trace's own start times replace the schedule when the
 *       workload has them.</li>
 * </ul>
 * Either way {@code maxCompleted} / {@code maxRequests} counts requests, not sessions: a session (or a replay of
 * one) starts only while the budget has room for it beside the turns the sessions in progress still have to send,
 * so a closed loop with more slots than sessions keeps only the sessions in flight; once the budget is sent no
 * further turn starts. Each record's intended send time is its session's start (turn 0) or the end of its think
 * time, which counts from the previous turn's end as the client stamped it (its start stamp plus its E2E), not from
 * when this loop took the reply in, so {@link ScheduledRecord#sendLagNanos()} reports how late the client was, a late
 * loop included. A closed loop's next session is due when the request that freed its slot ended. The open loop's
 * concurrency cap ({@link OpenLoopSettings#maxConcurrency()}) counts requests (turns) in flight: a turn due while
 * the cap is full waits, in order of due time, and is sent when a request ends; the wait is send lag (its intended
 * send is its due time), outside TTFT, as in {@link OpenLoopRunner}. A turn's request (a later turn's body carries
 * the history) is built shortly before it is due ({@link #BUILD_AHEAD_NANOS}), so its due instant holds the send
 * alone, as the open loop's arrivals do: a later turn once its previous turn ended, and in an open loop a session's
 * first turn too, its start being known from the schedule (or the trace); the open loop's clock starts that much
 * after the call, so even a session due at once is built before its time. A closed loop's next session is built
 * when a slot frees, as {@link ClosedLoopRunner} builds its next request: which slot frees first, and when, is not
 * known before. A turn built and never sent (a stop, the deadline, the request budget) gives its request back.
 * Warmup does not apply to sessions. The calling thread sends and
 * collects (a send never blocks); it counts output tokens before building the next turn, so its history and input
 * count include the reply. The listener (the journal, the live line) is called on a thread of its own
 * ({@link RecordPublisher}), each record after the turns it made due were sent: on this thread its first call, loading
 * and compiling the journal's code, held the next turns' sends for 230 ms (the sessions QA: turns sent 103-576 ms
 * after their due times, the server idle).
 */
public final class SessionRunner {

    private static final Finished STOP = new Finished(-1, null, null);
    private static final java.util.Comparator<Due> DUE_ORDER = (a, b) -> a.dueNanos != b.dueNanos
            ? Long.compare(a.dueNanos, b.dueNanos) : Long.compare(a.seq, b.seq);
    /**
     * How long before its due time a turn's request is built: enough for the loop's own wake-up to come first,
     * short enough that sessions thinking for seconds do not each hold a built body meanwhile. An open loop's clock
     * starts this long after the call, so its first sessions are built ahead too.
     */
    static final long BUILD_AHEAD_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final LlmClient client;
    private final TokenCounter tokenCounter;
    private final Duration cancelGrace;
    /** {@link #BUILD_AHEAD_NANOS}, or a test's own. */
    private final long buildAheadNanos;
    private final RunGuard<Finished> guard = new RunGuard<>(STOP);

    public SessionRunner(LlmClient client, TokenCounter tokenCounter) {
        this(client, tokenCounter, CancelGrace.GRACE);
    }

    /** With {@code cancelGrace} instead of {@link CancelGrace#GRACE} for the records of cancelled requests. */
    SessionRunner(LlmClient client, TokenCounter tokenCounter, Duration cancelGrace) {
        this(client, tokenCounter, cancelGrace, BUILD_AHEAD_NANOS);
    }

    /**
     * With {@code buildAheadNanos} instead of {@link #BUILD_AHEAD_NANOS}: a test's loop that must build a turn
     * before it is due, however late a loaded machine wakes it.
     */
    SessionRunner(LlmClient client, TokenCounter tokenCounter, Duration cancelGrace, long buildAheadNanos) {
        this.client = Objects.requireNonNull(client, "client");
        this.tokenCounter = Objects.requireNonNull(tokenCounter, "tokenCounter");
        this.cancelGrace = Objects.requireNonNull(cancelGrace, "cancelGrace");
        if (buildAheadNanos < 0) throw new IllegalArgumentException("buildAheadNanos must be >= 0");
        this.buildAheadNanos = buildAheadNanos;
    }

    public ClosedLoopResult runClosed(PacedWorkload workload, ClosedLoopSettings settings, RecordListener listener,
                                      BooleanSupplier stopped) {
        Run run = new Run(workload, listener, settings.concurrency(),
                settings.maxCompleted().orElse(workload.size()), null, settings.timeout(), Integer.MAX_VALUE);
        guard.begin();
        try {
            guard.attach(run.finished, run::stopNow, stopped.getAsBoolean());
            try (ClientOverheadMonitor overhead = ClientOverheadMonitor.start(client)) {
                long[] preconnect = run.finished.peek() == STOP ? new long[0]
                        : client.preconnect(settings.concurrency());
                run.execute();
                return new ClosedLoopResult(run.records, run.startEpochMillis, run.endEpochMillis,
                        run.endNanos - run.startNanos, run.sent, run.timedOut, run.stopped, List.of(), run.timeline, 0,
                        settings).withPreconnect(preconnect).withClockStart(run.startNanos)
                        .withClientOverhead(overhead.stop()).withTurnsNotSent(run.turnsNotSentAtEnd);
            }
        } finally {
            guard.end();
            workload.runEnded(); // its fresh sessions say whether the run waited for them
        }
    }

    public OpenLoopResult runOpen(PacedWorkload workload, OpenLoopSettings settings, RecordListener listener,
                                  BooleanSupplier stopped) {
        long[] starts = workload.startOffsetsNanos();
        if (starts == null) {
            starts = settings.schedule().offsetsNanos();
            // a request budget of the workload's requests: each session starts once (its turns are the requests);
            // a larger budget (a capacity search's level of N requests) or a duration: arrivals go on and start
            // further sessions (PacedWorkload#start) until the budget is spent or the time is up
            int sessions = workload.sessionList().size();
            if (settings.maxRequests().isPresent() && settings.maxRequests().getAsInt() <= workload.size()
                    && starts.length > sessions) {
                starts = java.util.Arrays.copyOf(starts, sessions);
            }
        }
        int cap = settings.maxRequests().orElse(Integer.MAX_VALUE);
        int inFlightCap = settings.maxConcurrency().orElse(Integer.MAX_VALUE);
        Run run = new Run(workload, listener, 0, cap, starts, settings.timeout(), inFlightCap);
        guard.begin();
        try {
            guard.attach(run.finished, run::stopNow, stopped.getAsBoolean());
            try (ClientOverheadMonitor overhead = ClientOverheadMonitor.start(client)) {
                long[] preconnect = run.finished.peek() == STOP ? new long[0]
                        : client.preconnect(Math.max(1, Math.min(inFlightCap, Math.min(64, starts.length))));
                run.execute();
                // a larger budget spent before the schedule's end: its later arrivals were never needed, not
                // sessions left unstarted (a plain run's budget starts one per session, every one)
                if (!run.timedOut && !run.stopped && run.started > 0 && run.started < starts.length) {
                    starts = java.util.Arrays.copyOf(starts, run.started);
                }
                long last = starts[starts.length - 1];
                double scheduled = starts.length < 2 || last <= starts[0] ? Double.NaN
                        : (starts.length - 1) / ((last - starts[0]) / 1e9);
                // sessions started per second (their first turns' sends), as the schedule's rate counts sessions
                double achieved = run.firstTurnsSent < 2 || run.lastSendOffset <= run.firstSendOffset ? Double.NaN
                        : (run.firstTurnsSent - 1) / ((run.lastSendOffset - run.firstSendOffset) / 1e9);
                // its arrivals started sessions: its settings say so (its summary's load, in sessions/s)
                return new OpenLoopResult(run.records, List.of(), run.timeline, run.startEpochMillis,
                        run.endEpochMillis, run.endNanos - run.startNanos, 0, run.records.size(), run.timedOut,
                        run.stopped, settings.withSessionArrivals(), 0, starts.length, starts.length - run.firstTurnsSent, run.maxBacklog,
                        scheduled, achieved).withPreconnect(preconnect).withClockStart(run.startNanos)
                        .withClientOverhead(overhead.stop()).withTurnsNotSent(run.turnsNotSentAtEnd);
            }
        } finally {
            guard.end();
            workload.runEnded(); // its fresh sessions say whether the run waited for them
        }
    }

    /**
     * Ends the current run early, from any thread: no request starts once this returns, and the requests still on the
     * wire are cancelled (here, on the calling thread) and recorded; those already answered keep their records.
     */
    public void stop() {
        guard.stop();
    }

    private record Finished(int launch, RequestRecord record, Throwable error) {
    }

    /** One session being played. */
    private static final class Active {
        final List<RequestSpec> turns;
        /** The session id its requests carry; null for a request without a session (one turn, never a rest). */
        final String id;
        /**
         * A failed session's rest: the workload's session it continues ({@code s0} for {@code s0~t2}, {@code s0~1}
         * for {@code s0~1~t2}); null for a session of the workload (or a replay of one).
         */
        final String restOf;
        final List<ChatMessage> history = new ArrayList<>();
        /** The turn number of {@code turns.get(0)} in the workload: 0, or where a failed session's rest begins. */
        final int firstTurn;
        /** A rest's: when the failed turn before it ended, the client's stamp; it is due then at the earliest. */
        final long failedAtNanos;
        int next;
        int inputTokensSoFar;

        /** A session of the workload, or a replay of one. */
        Active(List<RequestSpec> turns, String id) {
            this(turns, id, null, 0, 0);
        }

        private Active(List<RequestSpec> turns, String id, String restOf, int firstTurn, long failedAtNanos) {
            this.turns = turns;
            this.id = id;
            this.restOf = restOf;
            this.firstTurn = firstTurn;
            this.failedAtNanos = failedAtNanos;
        }

        /** The workload's session this one is or continues. */
        String workloadSession() {
            return restOf != null ? restOf : id;
        }

        /**
         * The turns this session had not sent when its turn failed at {@code failedAtNanos}, as a session of their
         * own: id {@code <session>~t<turn>}, its first turn's place in the workload's session (the users' name for
         * it, in the CSV's session_id and the X-Correlation-ID header); the turns keep their places. Its first turn
         * is sent with the system prompt and no history, so its input count is recounted with {@code counter} to
         * include the system prompt, which only a session's turn 0 counted; the later turns add up from it.
         */
        Active rest(long failedAtNanos, TokenCounter counter) {
            List<RequestSpec> left = new ArrayList<>(turns.subList(next, turns.size()));
            left.set(0, left.get(0).withSystemPromptCounted(counter));
            left = List.copyOf(left);
            int from = Math.max(0, left.get(0).inputs().turn());
            return new Active(left, workloadSession() + "~t" + from, workloadSession(), from, failedAtNanos);
        }

        /** A failed session's rest: its first turn continues its session, it is not a session's start. */
        boolean isRest() {
            return restOf != null;
        }
    }

    /**
     * A turn due at {@code dueNanos}. A later turn (its history known once the previous one ended), and an open
     * loop's first turn (its session's start scheduled), is built shortly before it is due ({@link Run#buildAhead}),
     * so its due instant holds the send alone; {@code ready}, its spec and its wire-end flag are then set. A closed
     * loop's first turn is built when due. A turn that will not be sent gives its request back ({@link #drop}).
     */
    private static final class Due {
        final long dueNanos;
        final long seq;
        final Active session;
        RequestSpec spec;
        PreparedRequest ready;
        AtomicBoolean wireEnded;
        /** Taken from the pending turns (sent or dropped): never built after. */
        boolean taken;

        Due(long dueNanos, long seq, Active session) {
            this.dueNanos = dueNanos;
            this.seq = seq;
            this.session = session;
        }

        void drop() {
            taken = true;
            if (ready != null) ready.discard();
            ready = null;
        }
    }

    /** A request sent; {@code wireEnded}: it is over on the wire. */
    private record InFlight(RequestHandle handle, RequestSpec sent, Active session, long intendedOffset,
                            long actualOffset, AtomicBoolean wireEnded) {

        /**
         * When the request ended, {@link System#nanoTime()}: its actual send (the client's own start stamp,
         * {@link SendStamps}) plus the record's E2E, the client's stamp of its last byte (or its failure). Not when
         * the loop got round to the completion: a late loop is send lag, never a later due time.
         */
        long endNanos(RequestRecord record, long runStartNanos) {
            return runStartNanos + actualOffset + Math.max(0, record.e2eNanos());
        }
    }

    private final class Run {
        final PacedWorkload workload;
        final List<List<RequestSpec>> sessions;
        final RecordListener listener;
        final int concurrency;
        final int maxRequests;
        final long[] starts;
        final Duration timeout;
        /** Requests (turns) in flight at most: the open loop's cap, or unlimited. */
        final int inFlightCap;
        /** The unsent turns of sessions a failure ended, each to start as a new session before any other. */
        final ArrayDeque<Active> leftovers = new ArrayDeque<>();
        /**
         * An open loop of drawn arrivals: a rest is a continuation, started without an arrival. A trace's rests are
         * not sent (the trace has no time for them): their turns count as not sent.
         */
        final boolean openLoopRests;
        /** When the workload's last session was due to start (its first pass): a rest is due then at the earliest. */
        long everySessionStartedNanos = Long.MIN_VALUE;
        final BlockingQueue<Finished> finished = new LinkedBlockingQueue<>();
        final PriorityQueue<Due> pending = new PriorityQueue<>(DUE_ORDER);
        /** The turns not built yet, by due time: each is built {@link #BUILD_AHEAD_NANOS} before it is due. */
        final PriorityQueue<Due> toBuild = new PriorityQueue<>(DUE_ORDER);
        /** Sent and not yet recorded; a stop reads it from another thread. */
        final Map<Integer, InFlight> inFlight = new ConcurrentHashMap<>();
        /** Sessions started and not ended, identity-compared. */
        final java.util.Set<Active> active = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        final List<RequestRecord> records = new ArrayList<>();
        final List<ScheduledRecord> timeline = new ArrayList<>();
        /** Records counted and not yet handed to the listener: it is called after the sends they made due. */
        final ArrayDeque<ScheduledRecord> unpublished = new ArrayDeque<>();
        final RecordPublisher publisher;
        long seq;
        /** The turns the sessions still in progress had not sent when the loop ended (its timeout, a stop). */
        int turnsNotSentAtEnd;
        int nextSession;
        int started;
        int sent;
        int firstTurnsSent;
        int maxBacklog;
        long firstSendOffset = -1;
        long lastSendOffset = -1;
        long startNanos;
        long endNanos;
        long startEpochMillis;
        long endEpochMillis;
        boolean timedOut;
        boolean stopped;
        /** {@link #stop()} was called: the loop leaves at its next turn, whatever is queued. */
        volatile boolean stopAsked;
        /** The deadline cut the run short: it closed sending while requests were on the wire or turns were due. */
        volatile boolean deadlineCut;
        final WindowEnd windowEnd = new WindowEnd();
        /** The handles cancelled (any thread), each once. */
        final Set<RequestHandle> cancelled = ConcurrentHashMap.newKeySet();
        // guarded by sendLock: a send and the close of sending exclude each other
        final Object sendLock = new Object();
        boolean closed;

        Run(PacedWorkload workload, RecordListener listener, int concurrency, int maxRequests, long[] starts,
            Duration timeout, int inFlightCap) {
            this.inFlightCap = inFlightCap;
            this.workload = workload;
            this.sessions = workload.sessionList();
            this.listener = listener == null ? RecordListener.NONE : listener;
            this.publisher = new RecordPublisher(this.listener, this::stopNow);
            this.concurrency = concurrency;
            this.maxRequests = maxRequests;
            this.starts = starts;
            this.timeout = timeout;
            this.openLoopRests = starts != null && workload.startOffsetsNanos() == null;
        }

        void execute() {
            // an open loop's first sessions are due at once: the clock starts late enough to build them before
            long lead = starts != null ? buildAheadNanos : 0;
            startEpochMillis = System.currentTimeMillis() + lead / 1_000_000L;
            startNanos = System.nanoTime() + lead;
            listener.onMeasureStart(startNanos); // the live line's clock: the summary's start
            long timeoutNanos = Deadlines.cappedNanos(timeout);
            long deadline = startNanos + timeoutNanos;
            boolean clean = false;
            try (DeadlineTimer timer = DeadlineTimer.at(deadline, timeoutNanos, this::closeAtDeadline)) {
                if (finished.peek() == STOP) {
                    stopped = true;
                } else {
                    if (starts == null) {
                        for (int i = 0; i < concurrency; i++) startNextSession(startNanos);
                    }
                    loop(deadline);
                }
                // counted before the in-flight turns are collected: the sessions in progress and a failed session's
                // rest still waiting to start
                turnsNotSentAtEnd = turnsNotSentOfSessionsInProgress();
                for (Active rest : leftovers) turnsNotSentAtEnd += rest.turns.size();
                boolean loadLeft = !pending.isEmpty() || turnsNotSentAtEnd > 0
                        || (starts == null ? sent < maxRequests : started < starts.length);
                // a stop or the deadline cut the sessions (thinking, or yet to start): the load was offered until
                // the cut, so the window runs to it, as an open loop's does when arrivals are still due
                if (loadLeft && (timedOut || deadlineCut || stopAsked)) windowEnd.scheduleCut();
                cancelAndCollect();
                clean = true;
            } finally {
                if (!clean) cancelAll();
                publisher.drain(); // every record heard before the result is
            }
            if (deadlineCut) timedOut = true;
            if (stopAsked && !timedOut) stopped = true;
            endNanos = Math.max(windowEnd.nanos(), startNanos);
            endEpochMillis = startEpochMillis + (endNanos - startNanos) / 1_000_000L;
        }

        /** A request is over on the wire (any thread). */
        private void wireEnded(AtomicBoolean ended) {
            ended.set(true);
            windowEnd.wireEnded(System.nanoTime());
        }

        /** No request starts from now on (any thread); whether this call closed it. */
        private boolean close() {
            synchronized (sendLock) {
                if (closed) return false;
                closed = true;
                windowEnd.closed();
                return true;
            }
        }

        /** {@link #stop()}, on the stopping thread: no more sends, and what is on the wire is cancelled. */
        void stopNow() {
            stopAsked = true;
            close();
            cancelAll();
        }

        /** The deadline, on the timer's thread: the same as a stop, told apart as a timeout. */
        private void closeAtDeadline() {
            if (close()) deadlineCut = true; // the loop closes at its own end: the run was still going
            cancelAll();
        }

        /** Turns the sessions in progress have still to send: the request budget keeps room for them. */
        private int reservedTurns() {
            int n = 0;
            for (Active a : active) n += a.turns.size() - a.next;
            return n;
        }

        /**
         * The turns not sent of the sessions that had sent one, and of a failed session's rest started and not sent
         * (its turns were not sent while it waited, and still are not). A session started (a slot freed, or built
         * ahead of its scheduled start) whose first turn the end came before never was in progress: its turns are
         * not counted (they were 6 too many for a session of 6).
         */
        private int turnsNotSentOfSessionsInProgress() {
            int n = 0;
            for (Active a : active) if (a.next > 0 || a.isRest()) n += a.turns.size() - a.next;
            return n;
        }

        /** Whether a new session (or a replay) fits in the request budget beside the sessions in progress. */
        private boolean roomForASession() {
            return (long) sent + reservedTurns() < maxRequests;
        }

        /**
         * Starts the next session (a closed loop: a failed session's rest first, once every session has started), its
         * first turn due at {@code dueNanos}: an open loop's is built ahead, as a later turn is; a closed loop's when
         * due. An open loop's arrival always starts a session: its rests start without one ({@link #startRests}).
         */
        private void startNextSession(long dueNanos) {
            if (!roomForASession()) return;
            // once every session has started, a failed session's unsent turns: fresh prompts, before any replay
            Active rest = starts == null && nextSession >= sessions.size() ? leftovers.poll() : null;
            if (rest != null) {
                started++;
                active.add(rest);
                due(dueNanos, rest, starts != null);
                return;
            }
            int k = nextSession++;
            if (nextSession == sessions.size()) everySessionStartedNanos = dueNanos;
            // the workload's sessions, then fresh ones or replays (PacedWorkload#start)
            PacedWorkload.Start next = workload.start(k);
            started++;
            // a request without a session (a trace's single request) is sent and recorded without one: it is an
            // arrival of its own, not a session (as trace-stats counts them)
            Active session = new Active(next.turns(), next.id());
            active.add(session);
            due(dueNanos, session, starts != null);
        }

        /**
         * An open loop's rests, once every session of the workload has started (before any replay): each is due when
         * its failed turn ended, or when the last session started if that came later. A rest goes on a session that
         * arrived, so it takes no arrival of the schedule: the arrivals scheduled, started and their rate count
         * sessions only, and its first turn's due time is the client's, judged from its actual send as a later turn's.
         */
        private void startRests() {
            if (!openLoopRests || nextSession < sessions.size()) return;
            while (!leftovers.isEmpty() && roomForASession()) {
                Active rest = leftovers.poll();
                active.add(rest);
                due(Math.max(rest.failedAtNanos, everySessionStartedNanos), rest, true);
            }
        }

        /** {@code session}'s next turn, due at {@code dueNanos}; {@code buildAhead}: built before it is due. */
        private void due(long dueNanos, Active session, boolean buildAhead) {
            Due due = new Due(dueNanos, seq++, session);
            pending.add(due);
            if (buildAhead) toBuild.add(due);
        }

        private void loop(long deadline) {
            while (true) {
                if (stopAsked) { // a stop closed sending already; whatever is queued is collected after
                    stopped = true;
                    return;
                }
                long now = System.nanoTime();
                if (starts != null) { // started ahead, so its first turn is built before it is due
                    while (started < starts.length && startNanos + starts[started] - buildAheadNanos <= now
                            && roomForASession()) {
                        startNextSession(startNanos + starts[started]);
                    }
                    startRests();
                }
                int backlog = 0;
                while (!pending.isEmpty() && pending.peek().dueNanos <= now) {
                    if (sent >= maxRequests) { // the request budget is spent: the session ends here
                        Due unsent = pending.poll();
                        unsent.drop();
                        active.remove(unsent.session);
                        continue;
                    }
                    if (inFlight.size() >= inFlightCap) break; // the cap is full: the due turns wait, in order
                    backlog++;
                    send(pending.poll(), now);
                }
                buildAhead(System.nanoTime());
                publish(); // after the sends: the listener's work is never a turn's send lag
                int waiting = 0; // due, kept behind the cap
                if (inFlight.size() >= inFlightCap) {
                    for (Due d : pending) if (d.dueNanos <= now) waiting++;
                }
                maxBacklog = Math.max(maxBacklog, Math.max(0, backlog - 1) + waiting);
                boolean moreStarts = starts != null && started < starts.length && roomForASession();
                if (inFlight.isEmpty() && pending.isEmpty() && !moreStarts) return;
                now = System.nanoTime();
                if (now >= deadline) {
                    timedOut = true;
                    return;
                }
                long wake = deadline;
                // behind a full cap only a completion frees a slot: no need to wake for a due turn
                if (!pending.isEmpty() && inFlight.size() < inFlightCap) {
                    wake = Math.min(wake, pending.peek().dueNanos);
                }
                if (moreStarts) wake = Math.min(wake, startNanos + starts[started] - buildAheadNanos);
                if (!toBuild.isEmpty()) wake = Math.min(wake, toBuild.peek().dueNanos - buildAheadNanos);
                Finished f;
                try {
                    f = wake <= now ? finished.poll() : finished.poll(wake - now, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    stopped = true;
                    return;
                }
                if (f == null) continue;
                if (f == STOP) {
                    stopped = true;
                    return;
                }
                completed(f);
            }
        }

        /** Sends the due turn, unless sending was closed (a stop, the deadline): then it stays unsent. */
        private void send(Due due, long now) {
            synchronized (sendLock) {
                if (closed) due.drop();
                else sendOpen(due, now);
            }
        }

        /** The session's next turn, with its history and its input tokens so far. */
        private RequestSpec nextTurn(Active session) {
            RequestSpec turn = session.turns.get(session.next);
            RequestInputs in = turn.inputs();
            int inputTokens = session.inputTokensSoFar + turn.numberInputTokens();
            return new RequestSpec(turn.index(), turn.prompt(), inputTokens, turn.maxTokens(),
                    new RequestInputs(in.systemPrompt(), session.history, in.images(), session.id, in.turn()));
        }

        private void sendOpen(Due due, long now) {
            due.taken = true; // due before it was built ahead: built here
            Active session = due.session;
            boolean built = due.ready != null;
            RequestSpec spec = built ? due.spec : nextTurn(session);
            session.next++;
            int launch = sent++;
            long actual = now - startNanos;
            long intended = due.dueNanos - startNanos;
            if (session.next == 1 && !session.isRest()) { // a session's first turn: its start (a rest's goes on)
                if (firstSendOffset < 0) firstSendOffset = actual;
                lastSendOffset = actual;
                firstTurnsSent++;
            }
            AtomicBoolean wireEnded = built ? due.wireEnded : new AtomicBoolean();
            RequestHandle handle;
            try {
                handle = built ? due.ready.send() : client.send(spec, () -> wireEnded(wireEnded));
            } catch (RuntimeException e) {
                inFlight.put(launch, new InFlight(null, spec, session, intended, actual, wireEnded));
                finished.add(new Finished(launch, failed(spec, "unsent-" + launch, actual, new Failure(
                        FailureKind.CLIENT_ERROR, -1, "the client refused the request: " + e)), null));
                return;
            }
            // the client's start stamp is the actual send: the turn's body built since (its history) is send lag
            inFlight.put(launch, new InFlight(handle, spec, session, intended,
                    SendStamps.actualOffset(handle, startNanos, actual), wireEnded));
            handle.completion().whenComplete((record, error) -> finished.add(new Finished(launch, record, error)));
        }

        /** The client's own delay after the turn's start stamp, which its send lag counts ({@link ScheduledRecord}). */
        private static long clientDelay(InFlight e) {
            return e.handle() == null ? 0 : e.handle().clientDelayNanos();
        }

        private void completed(Finished f) {
            InFlight e = inFlight.remove(f.launch());
            if (e == null) return;
            RequestRecord record = f.record() != null ? f.record() : failed(e.sent(), clientId(e, f.launch()),
                    e.actualOffset(), new Failure(FailureKind.CLIENT_ERROR, -1,
                    "the client completed the request without a record: " + f.error()));
            ScheduledRecord counted = count(new ScheduledRecord(withSessionTurns(record, e.session()), f.launch(),
                    e.intendedOffset(), e.actualOffset(), false, clientDelay(e)));
            unpublished.add(counted);
            Active session = e.session();
            RequestRecord r = counted.record();
            long ended = e.endNanos(r, startNanos);
            boolean goOn = r.succeeded() && session.next < session.turns.size() && sent < maxRequests;
            if (goOn) {
                int reply = r.outputTokens() >= 0 ? r.outputTokens()
                        : r.usageCompletionTokens() != null ? r.usageCompletionTokens() : 0;
                session.inputTokensSoFar = e.sent().numberInputTokens() + reply;
                // with its images: the server sees the conversation it saw, and its prefix cache can hit
                session.history.add(ChatMessage.user(e.sent().prompt(), e.sent().inputs().images()));
                session.history.add(ChatMessage.assistant(r.generatedText()));
                due(ended + workload.thinkTime().nanosBefore(session.turns.get(session.next)), session, true);
            } else {
                active.remove(session);
                if (!r.succeeded() && session.next < session.turns.size()) {
                    // a failed turn ends its session; the turns it did not send start a new one, never resent
                    leftovers.add(session.rest(ended, tokenCounter));
                }
                if (starts == null) startNextSession(ended); // closed loop: the slot freed when the request ended
            }
        }

        /**
         * Builds the turns due within {@link #BUILD_AHEAD_NANOS} of {@code now}: a long conversation's body (or a
         * first turn's long prompt) is not built in its due instant. A client that refuses one leaves it to be built when due, where the refusal
         * is recorded.
         */
        private void buildAhead(long now) {
            while (!toBuild.isEmpty() && toBuild.peek().dueNanos - buildAheadNanos <= now) {
                Due due = toBuild.poll();
                if (due.taken) continue;
                RequestSpec spec = nextTurn(due.session);
                AtomicBoolean wireEnded = new AtomicBoolean();
                try {
                    due.ready = client.prepare(spec, () -> wireEnded(wireEnded));
                    due.spec = spec;
                    due.wireEnded = wireEnded;
                } catch (RuntimeException e) {
                    // built when due
                }
            }
        }

        private void keep(ScheduledRecord scheduled) {
            unpublished.add(count(scheduled));
            publish();
        }

        /** {@code scheduled} with its output tokens counted (the next turn's input count needs them). */
        private ScheduledRecord count(ScheduledRecord scheduled) {
            return scheduled.withRecord(ClientTokenCount.count(scheduled.record(), tokenCounter));
        }

        /** Keeps the counted records, in the order they completed, and hands each to the listener. */
        private void publish() {
            ScheduledRecord counted;
            while ((counted = unpublished.poll()) != null) {
                timeline.add(counted);
                records.add(counted.record());
                publisher.publish(counted);
            }
        }

        /**
         * Cancels what is still on the wire and keeps every request's record. The records already queued (a backlog
         * the counting has not reached) and those of the cancelled requests are taken first, without counting, so the
         * grace is spent on the wire only; they are counted and kept after, in the order taken. A request whose record
         * has not come by then keeps the one its handle holds, if any: only a request the client never completed is
         * recorded here as CANCELLED.
         */
        private void cancelAndCollect() {
            publish(); // a record the loop counted before it left
            pending.forEach(Due::drop);
            pending.clear();
            toBuild.clear();
            close();
            if (inFlight.isEmpty()) return;
            cancelAll();
            List<ScheduledRecord> taken = new ArrayList<>();
            java.util.function.Consumer<Finished> take = f -> {
                if (f == STOP) return;
                InFlight e = inFlight.remove(f.launch());
                if (e == null) return;
                RequestRecord record = f.record() != null ? f.record() : failed(e.sent(), clientId(e, f.launch()),
                        e.actualOffset(), new Failure(FailureKind.CANCELLED, -1, "cancelled: " + f.error()));
                taken.add(new ScheduledRecord(withSessionTurns(record, e.session()), f.launch(), e.intendedOffset(),
                        e.actualOffset(), false, clientDelay(e)));
            };
            boolean interrupted = CancelGrace.collect(finished, () -> !inFlight.isEmpty(), take,
                    cancelGrace);
            Finished queued;
            while ((queued = finished.poll()) != null) take.accept(queued); // queued since the grace's last look
            for (Map.Entry<Integer, InFlight> left : List.copyOf(inFlight.entrySet())) {
                InFlight e = left.getValue();
                RequestRecord completed = CancelGrace.recordOf(e.handle(), e.wireEnded().get());
                taken.add(new ScheduledRecord(withSessionTurns(completed != null ? completed : failed(e.sent(),
                        clientId(e, left.getKey()), e.actualOffset(), new Failure(FailureKind.CANCELLED, -1,
                        "cancelled; the client gave no record within " + cancelGrace.toSeconds() + " s")),
                        e.session()), left.getKey(), e.intendedOffset(), e.actualOffset(), false, clientDelay(e)));
            }
            inFlight.clear();
            try {
                taken.forEach(this::keep);
            } finally {
                if (interrupted) Thread.currentThread().interrupt();
            }
        }

        private void cancelAll() {
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

        /**
         * {@code record} tagged with the turns the workload gave its session and, a rest's, the session it continues,
         * so the summary tells the sessions completed from those cut and counts a rest in its session; unchanged
         * outside sessions.
         */
        private RequestRecord withSessionTurns(RequestRecord record, Active session) {
            if (session.id == null || record.tags().sessionId() == null) return record;
            return record.withTags(record.tags().withWorkloadSession(session.firstTurn + session.turns.size(),
                    session.restOf));
        }

        private String clientId(InFlight e, int launch) {
            return e.handle() != null ? e.handle().clientRequestId() : "unsent-" + launch;
        }

        /** A record of the run's own, stamped at the request's send (never later: it was on the wire since). */
        private RequestRecord failed(RequestSpec spec, String clientRequestId, long sendOffsetNanos, Failure failure) {
            RequestRecord r = new RequestRecord(spec.index(), clientRequestId, null,
                    startEpochMillis * 1_000L + sendOffsetNanos / 1_000L, RequestRecord.NEVER,
                    RequestRecord.NEVER, RequestRecord.NEVER, 0, null, "", spec.numberInputTokens(), spec.maxTokens(),
                    -1, null, null, null, failure);
            return r.withTags(io.llmperf4j.model.RequestTags.of(spec.inputs()));
        }
    }
}

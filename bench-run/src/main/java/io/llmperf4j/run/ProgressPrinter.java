package io.llmperf4j.run;

import io.llmperf4j.engine.client.HeaderWait;
import io.llmperf4j.engine.load.RecordListener;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.Percentiles;
import io.llmperf4j.model.RequestRecord;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Progress on stderr: requests done (of how many, when known), failures, requests the client cancelled (the run's
 * end, a signal, a capacity search's verdict: {@link FailureKind#CANCELLED}, counted apart from the server's and the
 * connection's failures, when there are any), elapsed time, rate and the TTFT median of the last
 * {@value #TTFT_WINDOW} successes. Once the measured window has ended on the wire (the last expected request
 * answered, or sending closed: the run's end, a stop, {@code --timeout}) while records are still to come (the client
 * counting tokens of degenerate answers, cancelling at the deadline), the rate is the window's, and the line says so:
 * "window ended at 4.0 s (13.00 req/s); counting tokens of 38 answers", not a rate falling toward 0 as time goes on.
 * When the run's end cuts an open loop's schedule, the count's total becomes the requests sent and the line says the
 * rest: "40/40 requests done (10 arrivals not sent: --timeout ended the schedule)"; a closed loop's end before it sent
 * them all says the same of its requests: "2/2 requests done (1 request not sent: --timeout ended the run)".
 * A silent server is said too ({@link #watch}): after {@value #QUIET_SECONDS} s without a line while requests wait
 * for their response headers, a line says how many and since when, every {@value #QUIET_SECONDS} s (QA: a server
 * that accepted the connections and never answered gave 90 s without a line).
 * Two modes:
 * <ul>
 *   <li>plain (stderr is not a terminal: a file, a pipe, CI): at most one line a second, one when the last
 *       request is done, and from {@link #finish()} one with the final counts when the last line printed is behind
 *       them (a run that timed out: the requests cancelled in flight come in at once, after the last line);</li>
 *   <li>live (stderr is a terminal): one line rewritten in place with {@code \r} a few times a second;
 *       {@link #finish()} ends it with a newline, so call it before anything else is printed.</li>
 * </ul>
 * Safe to feed from another thread than the one that finishes it (a cluster's records arrive on the coordinator's
 * cluster threads); records after {@link #finish()} are ignored.
 */
final class ProgressPrinter implements RecordListener {
    private static final long PRINT_INTERVAL_NANOS = 1_000_000_000L;
    private static final long LIVE_INTERVAL_NANOS = 200_000_000L;
    private static final int TTFT_WINDOW = 256;
    /** Seconds without a line, and of the oldest request's wait for its headers, before a line says so. */
    static final int QUIET_SECONDS = 10;
    private static final long QUIET_NANOS = QUIET_SECONDS * 1_000_000_000L;
    /** Erase from the cursor to the end of the line (ANSI), so a shorter line leaves nothing behind. */
    private static final String ERASE_TO_END = "\033[K";

    private final PrintStream err;
    /** Measured requests expected; after a schedule cut, those sent ({@link #onScheduleCut}). */
    private int total;
    private final boolean totalKnown;
    private final boolean live;
    private final String label;
    private final long[] recentTtft = new long[TTFT_WINDOW];
    /** Written without the lock by {@link #onMeasureStart} (a send must not wait for a line being printed). */
    private volatile long startNanos = System.nanoTime();
    private long lastPrintNanos = startNanos;
    /** Whether the runner told the measured window's start ({@link #onMeasureStart}), which the clock then counts from. */
    private final AtomicBoolean measureStartKnown = new AtomicBoolean();
    private int done;
    private int failed;
    private int cancelled;
    private int warmup;
    private int successes;
    /** Measured requests over on the wire, and the last one's end ({@link #onMeasuredWireEnd}); -1 before any. */
    private int answered;
    private long lastWireEndNanos = -1;
    /** Measured requests answered by the window's end, for its rate. */
    private int answeredInWindow;
    /** When sending was closed ({@link #onSendingClosed}); -1 before. */
    private long closedNanos = -1;
    /**
     * Measured arrivals (an open loop's, {@link #onScheduleCut}) or requests (a closed loop's,
     * {@link #onRequestsNotSent}) the run's end left unsent, and why; -1 before a cut.
     */
    private int notSent = -1;
    private boolean cutByTimeout;
    /** A capacity search's verdict ended the level early ({@link #onLevelEndedEarly}): the cut's cause, not a stop. */
    private boolean endedEarly;
    private boolean workerLost;
    /** The cut was a closed loop's: its requests, not a schedule's arrivals; its window is not moved to the cut. */
    private boolean requestsCut;
    private boolean cutPrinted;
    private boolean lineOpen;
    private boolean finished;
    /** The counts of the last line printed (plain mode), so {@link #finish()} prints only what it has not said. */
    private int printedDone;
    private int printedFailed;
    private int printedCancelled;
    private int printedWarmup;
    /** The client's requests waiting for headers ({@link #watch}); null when not watched. */
    private Supplier<HeaderWait> headerWaits;
    private ScheduledExecutorService ticker;
    /** What the next line adds on a silent server ({@link #onTick}); empty otherwise. */
    private String waitNote = "";

    /** Plain lines, {@code total} requests expected. */
    ProgressPrinter(PrintStream err, int total) {
        this(err, total, false, "");
    }

    /**
     * @param total how many measured requests are expected; 0 or less when unknown
     * @param live  rewrite one line in place (for a terminal)
     * @param label shown before the counts, e.g. "concurrency 8"; may be empty
     */
    ProgressPrinter(PrintStream err, int total, boolean live, String label) {
        this.err = err;
        this.total = total;
        this.totalKnown = total > 0;
        this.live = live;
        this.label = label.isEmpty() ? "" : "[" + label + "] ";
    }

    /** Live when {@code err} is this process's stderr and that is a terminal, plain otherwise. */
    static ProgressPrinter forStderr(PrintStream err, int total, String label) {
        return new ProgressPrinter(err, total, err == System.err && stderrIsTerminal(), label);
    }

    /**
     * {@link System#console()} (stdin and stdout are a terminal), or on Linux stderr's file descriptor pointing
     * at a terminal device, so that {@code llmperf4j ... > out.txt} still shows the live line.
     */
    static boolean stderrIsTerminal() {
        if (System.console() != null) {
            return true;
        }
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false; // not Linux, or not allowed to look: plain lines are always safe
        }
    }

    /** Live when {@code err} is this process's stderr and a terminal is attached, plain otherwise. */
    static ProgressPrinter forStderr(PrintStream err, int total) {
        return forStderr(err, total, "");
    }

    /**
     * Counts time from {@code startNanos} ({@link System#nanoTime()}) instead of this printer's creation: a cluster
     * run's shared start instant, a couple of seconds after its level started.
     */
    synchronized void startClockAt(long startNanos) {
        this.startNanos = startNanos;
        this.lastPrintNanos = startNanos;
    }

    /**
     * The clock counts from the measured window's start, the summary's (not the level's start, nor a warmup's): the
     * line's time and rate are then the summary's for the same window. Any thread (a runner's send, under its lock:
     * never waits for this printer's); the first call counts.
     */
    @Override
    public void onMeasureStart(long nanoTime) {
        if (measureStartKnown.compareAndSet(false, true)) startNanos = nanoTime;
    }

    @Override
    public synchronized void onRecord(RequestRecord record) {
        if (finished) return;
        done++;
        if (!record.succeeded()) {
            if (record.failure().kind() == FailureKind.CANCELLED) {
                cancelled++;
            } else {
                failed++;
            }
        } else if (record.ttftNanos() >= 0) {
            recentTtft[successes++ % TTFT_WINDOW] = record.ttftNanos();
        }
        maybePrint(done == total);
    }

    /** Counts it, without printing: called on I/O threads, which must not wait on stderr. */
    @Override
    public synchronized void onMeasuredWireEnd(long nanoTime) {
        if (finished) return;
        answered++;
        if (lastWireEndNanos == -1 || nanoTime - lastWireEndNanos > 0) lastWireEndNanos = nanoTime;
        if (closedNanos == -1 || nanoTime - closedNanos <= 0) answeredInWindow = answered;
    }

    @Override
    public synchronized void onSendingClosed(long nanoTime) {
        if (!finished && closedNanos == -1) closedNanos = nanoTime;
    }

    /**
     * An open loop's schedule was cut ({@link RecordListener#onScheduleCut}): the requests still to come are those
     * sent, so the count's total drops to them and the line says how many arrivals were not sent and why; the window
     * then ends at the cut, as the summary's does, even when the last answer came before it.
     */
    @Override
    public synchronized void onScheduleCut(int arrivalsNotSent, boolean timedOut) {
        if (finished || notSent != -1) return;
        notSent = arrivalsNotSent;
        cutByTimeout = timedOut;
        if (totalKnown) total = Math.max(0, total - arrivalsNotSent);
    }

    /** A load worker left the cluster mid-level: what was not sent is told as its doing, not a stop's. */
    synchronized void onWorkerLost() {
        workerLost = true;
    }

    /** A capacity search's verdict ended this level early: what was not sent is told as its doing, not a stop's. */
    synchronized void onLevelEndedEarly() {
        endedEarly = true;
    }

    /**
     * A closed loop ended ({@code --timeout}, a stop) before it sent all its requests: as {@link #onScheduleCut}, the
     * count's total drops to those sent and the line says how many were not sent and why.
     */
    synchronized void onRequestsNotSent(int requestsNotSent, boolean timedOut) {
        if (finished || notSent != -1 || requestsNotSent <= 0) return;
        onScheduleCut(requestsNotSent, timedOut);
        requestsCut = true;
    }

    /**
     * The measured window's end, as the runners take it: the last measured wire end, or when sending was closed if
     * that came first (the requests then on the wire were cut there); after a schedule cut, the close if later
     * (the load was offered until then); -1 while it goes on.
     */
    private long windowEndNanos() {
        if (closedNanos != -1 && notSent != -1 && !requestsCut) return lastWireEndNanos == -1 || closedNanos - lastWireEndNanos > 0
                ? closedNanos : lastWireEndNanos;
        if (closedNanos != -1) return lastWireEndNanos == -1 || closedNanos - lastWireEndNanos < 0 ? closedNanos
                : lastWireEndNanos;
        return totalKnown && answered >= total ? lastWireEndNanos : -1;
    }

    @Override
    public synchronized void onWarmupRecord(RequestRecord record) {
        if (finished) return;
        warmup++;
        maybePrint(false);
    }

    /**
     * Ends the live line (with the final counts); in plain mode prints the final counts unless the last line printed
     * already shows them; nothing when called again. Call it when the level ends, before its summary, so the last
     * progress line agrees with the summary's counts.
     */
    synchronized void finish() {
        if (!finished && live && (lineOpen || done + warmup > 0)) {
            print(System.nanoTime());
            err.println();
            err.flush();
            lineOpen = false;
        } else if (!finished && !live && (done != printedDone || failed != printedFailed
                || cancelled != printedCancelled || warmup != printedWarmup || notSent != -1 && !cutPrinted)) {
            print(System.nanoTime());
        }
        finished = true;
        if (ticker != null) ticker.shutdownNow();
    }

    /**
     * Watches {@code source} (the client's requests in flight) once a second, so that a server silent for
     * {@value #QUIET_SECONDS} s is said ({@link #onTick}); stopped by {@link #finish()}.
     */
    synchronized void watch(Supplier<HeaderWait> source) {
        if (finished || ticker != null) return;
        observe(source);
        ticker = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "llmperf4j-progress-quiet");
            thread.setDaemon(true); // never keeps the process alive
            return thread;
        });
        ticker.scheduleWithFixedDelay(() -> onTick(System.nanoTime()), 1, 1, TimeUnit.SECONDS);
    }

    /** Reads {@code source} at each {@link #onTick}, without a clock of its own (tests tick it themselves). */
    synchronized void observe(Supplier<HeaderWait> source) {
        headerWaits = source;
    }

    /**
     * At {@code now}: when no line came for {@value #QUIET_SECONDS} s and the oldest request waiting for its response
     * headers has waited as long, a line saying how many wait and for how long: "; no response headers yet for 10 of
     * the 10 requests in flight, the oldest sent 30.0 s ago".
     */
    synchronized void onTick(long now) {
        if (finished || headerWaits == null || now - lastPrintNanos < QUIET_NANOS) return;
        HeaderWait wait = headerWaits.get();
        if (wait == null || wait.waiting() == 0 || now - wait.oldestStartNanos() < QUIET_NANOS) return;
        waitNote = String.format(Locale.ROOT, "; no response headers yet for %d of the %d request%s in flight, the "
                + "oldest sent %.1f s ago", wait.waiting(), wait.inFlight(), wait.inFlight() == 1 ? "" : "s",
                (now - wait.oldestStartNanos()) / 1e9);
        lastPrintNanos = now;
        print(now);
        waitNote = "";
    }

    private void maybePrint(boolean last) {
        long now = System.nanoTime();
        long interval = live ? LIVE_INTERVAL_NANOS : PRINT_INTERVAL_NANOS;
        if (last || now - lastPrintNanos >= interval) {
            lastPrintNanos = now;
            print(now);
        }
    }

    private void print(long now) {
        double elapsedS = Math.max(0, (now - startNanos) / 1e9); // the window's start may be ahead (a warmup)
        String counts = totalKnown ? done + "/" + total : Integer.toString(done);
        String cut = "";
        if (notSent != -1) { // the arrivals the cut left are no longer counted as to come
            String what = requestsCut ? " request" : " arrival";
            cut = " (" + notSent + what + (notSent == 1 ? "" : "s") + " not sent: " + (cutByTimeout
                    ? requestsCut ? "--timeout ended the run" : "--timeout ended the schedule"
                    : workerLost ? "a load worker left the cluster mid-run"
                    : endedEarly ? "the search's verdict ended the level early" : "the run was stopped") + ")";
            cutPrinted = true;
        }
        String line = String.format(Locale.ROOT, "llmperf4j: %s%s requests done%s, %d failed%s, %.1f s, %s%s%s%s",
                label, counts, cut, failed, cancelled > 0 ? ", " + cancelled + " cancelled" : "", elapsedS,
                rateText(elapsedS), ttftText(), warmup > 0 ? " (+" + warmup + " warmup, excluded)" : "", waitNote);
        printedDone = done;
        printedFailed = failed;
        printedCancelled = cancelled;
        printedWarmup = warmup;
        if (live) {
            err.print("\r" + line + ERASE_TO_END);
            lineOpen = true;
        } else {
            err.println(line);
        }
        err.flush();
    }

    /**
     * "13.00 req/s" while the window goes on: the measured requests over on the wire (their tokens counted or not;
     * warmup ones never) over the time since the window's start. Once it ended, its own rate (the measured requests
     * answered in it, over its end from its start), said so when the line comes later: "window ended at 4.0 s (13.00
     * req/s); counting tokens of 38 answers" while records are still to come.
     */
    private String rateText(double elapsedS) {
        long end = windowEndNanos();
        // measured requests only (the summary's), over on the wire whether or not their tokens are counted yet
        if (end == -1) return String.format(Locale.ROOT, "%.2f req/s", Math.max(answered, done)
                / Math.max(elapsedS, 1e-9));
        double endS = Math.max(0, (end - startNanos) / 1e9);
        int inWindow = closedNanos == -1 ? answered : answeredInWindow;
        String rate = String.format(Locale.ROOT, "%.2f req/s", inWindow / Math.max(endS, 1e-9));
        // answers ended on the wire whose record has not come; a request cancelled at the close ended there with
        // no answer (QA: "counting tokens of 9 answers" of a server that never sent a byte), so only the window's
        int uncounted = closedNanos == -1 ? answered - done : answeredInWindow - (done - cancelled);
        if (uncounted <= 0 && elapsedS - endS < 0.1) return rate; // the line comes with the window's end
        String ended = String.format(Locale.ROOT, "window ended at %.1f s (%s)", endS, rate);
        return uncounted > 0 ? ended + "; counting tokens of " + uncounted + " answer" + (uncounted == 1 ? "" : "s")
                : ended;
    }

    private String ttftText() {
        int n = Math.min(successes, TTFT_WINDOW);
        if (n == 0) {
            return "";
        }
        // the one percentile definition, as the summary's TTFT p50
        double median = Percentiles.of(Arrays.copyOf(recentTtft, n), 50);
        return String.format(Locale.ROOT, ", TTFT p50 %.1f ms", median / 1e6);
    }
}

package io.llmperf4j.run;

import io.llmperf4j.engine.Benchmark;
import io.llmperf4j.report.jsonl.RequestJournal;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Ctrl-C and SIGTERM during a run of token-benchmark (its load runs are a sequence of levels: sweep levels, one per
 * model in a comparison), of its embeddings benchmark, or of correctness (one level), from the run's start:
 * <ul>
 *   <li>before the measurement (the endpoint's pre-run check, the client warm-up, with {@link #beforeMeasurement}):
 *       either signal ends the process at once with one line, after the given clean-up (the results folder
 *       released, nothing recorded, nothing of an earlier run removed);</li>
 *   <li>SIGTERM (timeout, CI, systemd, Kubernetes: one TERM, then the process is expected to end) stops
 *       everything: the current level is aborted, no other starts, and every file is written;</li>
 *   <li>with several levels, the first Ctrl-C during a level aborts that level (its requests in flight are
 *       cancelled; it is kept, marked aborted, with its failure rate) and the run goes on with the next level;</li>
 *   <li>a second Ctrl-C during the same level, or one between levels, or the first when there is only one level,
 *       stops everything as SIGTERM does;</li>
 *   <li>a signal after that quits at once, after settling the results folder ({@link #atQuit}) and saying in one
 *       line what became of it.</li>
 * </ul>
 * A Ctrl-C during a later level is again "first" for that level, so each slow level can be skipped in turn. The exit
 * code is 130 whichever signal it was. A signal that comes after every request of the level had ended on the wire
 * (while their tokens are counted, or the files written) cut nothing: the level is not marked stopped
 * ({@link #levelEnded(boolean)}), and {@link #uncutSignal()} says so for the run's last line.
 */
final class StopControl implements InterruptHandler.Stages {
    private final PrintStream err;
    private final boolean severalLevels;
    private Runnable stopLevel;   // guarded by this; null between runs
    private Runnable stopAll;     // guarded by this
    private boolean inLevel;      // guarded by this
    private int levelSignals;     // guarded by this
    private boolean all;          // guarded by this
    private boolean interrupted;  // guarded by this
    /** Until {@link #measurementStarts()}: what a signal does before it halts the process; null after. */
    private Runnable beforeMeasurement; // guarded by this
    /** Runs once, when the first level starts: the first new file is about to be written. */
    private Runnable firstLevel;  // guarded by this
    /** What a signal that quits at once runs first (settles the results folder), and what it says; may be null. */
    private Supplier<String> atQuit; // guarded by this
    /** "SIGINT" or "SIGTERM" when a signal cut the level running (or last run) short; null otherwise. */
    private String levelStoppedBy; // guarded by this
    private boolean levelEndedEarly; // guarded by this: endLevel() ended the level running (a search's verdict)
    /** The signal that first cut a level short, for the whole run; null when none did. */
    private String stoppedBy;     // guarded by this
    /** Whether {@link #stoppedBy} came from the level running now (undone when that level turns out uncut). */
    private boolean stoppedByThisLevel; // guarded by this
    /** The last signal that stopped the run without cutting a request short; null when none did. */
    private String uncutSignal;   // guarded by this
    /**
     * The journal being written now, or null: a quit at once holds its lock until the process halts, so the number
     * of records it reports is the number the file keeps (an append is whole under that lock, and none follows).
     */
    private RequestJournal journal; // guarded by this
    private final Runnable halt;

    /** @param severalLevels whether the run has more than one level in all (a sweep, or several models) */
    StopControl(PrintStream err, boolean severalLevels) {
        this(err, severalLevels, () -> Runtime.getRuntime().halt(InterruptHandler.EXIT_CODE));
    }

    /** @param halt ends the process (exit 130) for a quit at once; a test's own does not */
    StopControl(PrintStream err, boolean severalLevels, Runnable halt) {
        this.err = err;
        this.severalLevels = severalLevels;
        this.halt = halt;
    }

    /** The journal the current level appends to (null once it is closed), for a quit at once to count. */
    synchronized void journal(RequestJournal current) {
        this.journal = current;
    }

    /** The benchmark that runs now (before its {@code run()}); a stop already requested applies to it at once. */
    synchronized void attach(Benchmark benchmark) {
        attach(benchmark::stop, benchmark::stopAll);
    }

    /**
     * What runs now (before it starts), as what ends its current level and what ends it all; a stop already
     * requested applies at once.
     */
    synchronized void attach(Runnable stopLevel, Runnable stopAll) {
        this.stopLevel = stopLevel;
        this.stopAll = stopAll;
        if (all) {
            stopAll.run();
        }
    }

    /** Ends the level running now, as the first Ctrl-C of a sweep does, but not as a signal (a search's early stop). */
    synchronized void endLevel() {
        if (stopLevel != null && inLevel) {
            levelEndedEarly = true;
            stopLevel.run();
        }
    }

    /** The last level started was ended by {@link #endLevel()} (a search's verdict), not by a signal or its end. */
    synchronized boolean levelEndedEarly() {
        return levelEndedEarly;
    }

    synchronized void detach() {
        stopLevel = null;
        stopAll = null;
        inLevel = false;
    }

    synchronized void levelStarted() {
        Runnable first = firstLevel;
        firstLevel = null;
        if (first != null) first.run();
        inLevel = true;
        levelSignals = 0;
        levelStoppedBy = null;
        levelEndedEarly = false;
        stoppedByThisLevel = false;
    }

    /**
     * Until {@link #measurementStarts()}, a signal prints one line, runs {@code cleanUp} (on the signal's thread)
     * and halts the process (exit 130): nothing slow before the measurement (the pre-run check, the warm-up) can
     * then keep it running or end it silently.
     */
    synchronized void beforeMeasurement(Runnable cleanUp) {
        this.beforeMeasurement = cleanUp;
    }

    /** The measurement starts: signals are staged from now on; {@code onFirstLevel} runs as the first level starts. */
    synchronized void measurementStarts(Runnable onFirstLevel) {
        this.beforeMeasurement = null;
        this.firstLevel = onFirstLevel;
    }

    /**
     * What a signal that quits at once (after the stop) runs first, on the signal's thread: it settles the results
     * folder and returns what became of it, for the quit's one line (null: nothing to say).
     */
    synchronized void atQuit(Supplier<String> settle) {
        this.atQuit = settle;
    }

    /** "SIGINT" or "SIGTERM" when a signal cut any level of the run short; else null. */
    synchronized String stoppedBy() {
        return stoppedBy;
    }

    /** "SIGINT" or "SIGTERM" when a signal cut the current (or last ended) level short; else null. */
    synchronized String levelStoppedBy() {
        return levelStoppedBy;
    }

    /** The level ended; as {@link #levelEnded(boolean)} with a signal during it taken as having cut it. */
    synchronized void levelEnded() {
        levelEnded(true);
    }

    /**
     * The level ended; {@code cut}: a stop cut it short (its result says stopped). A signal during a level it did not
     * cut (every request had ended on the wire) leaves it unmarked and is told apart by {@link #uncutSignal()}.
     */
    synchronized void levelEnded(boolean cut) {
        inLevel = false;
        if (!cut && levelStoppedBy != null) {
            uncutSignal = levelStoppedBy;
            levelStoppedBy = null;
            if (stoppedByThisLevel) stoppedBy = null;
        }
        stoppedByThisLevel = false;
    }

    /**
     * "SIGINT" or "SIGTERM" when a signal stopped the run but cut no request short ({@link #stoppedBy()} is null):
     * it came after every request had ended on the wire, or between levels; else null.
     */
    synchronized String uncutSignal() {
        return stoppedBy == null ? uncutSignal : null;
    }

    @Override
    public synchronized boolean onSignal(String signal) {
        if (beforeMeasurement != null) {
            err.println("\nllmperf4j: " + signal + " received: interrupted before the measurement: nothing "
                    + "recorded");
            err.flush();
            Runnable cleanUp = beforeMeasurement;
            beforeMeasurement = null;
            cleanUp.run();
            all = true;
            interrupted = true;
            return false; // the process exits at once, 130
        }
        if (all) {
            Object writing = journal == null ? new Object() : journal; // no journal open: nothing to hold
            synchronized (writing) { // held until the halt: no record is appended after the count
                quit(signal);
                halt.run();
            }
            return false;
        }
        interrupted = true;
        if (inLevel && levelStoppedBy == null) {
            levelStoppedBy = "SIG" + signal;
            if (stoppedBy == null) {
                stoppedBy = levelStoppedBy;
                stoppedByThisLevel = true;
            }
        } else if (!inLevel) {
            uncutSignal = "SIG" + signal; // between levels, or after the last: no request was on the wire
        }
        if (severalLevels && inLevel && levelSignals == 0 && !signal.equals("TERM")) {
            levelSignals++;
            // the stop first, the words after: a line to stderr can wait (a pipe, the progress line's lock), and no
            // request may reach the wire meanwhile
            if (stopLevel != null) {
                stopLevel.run();
            }
            err.println("\nllmperf4j: " + signal + " received: aborting this level (its requests in flight are "
                    + "cancelled; it is kept, marked aborted and not judged) and going on with the next; Ctrl-C "
                    + "again during this level or between levels stops everything and writes the results (SIGTERM "
                    + "stops everything at once)");
            return true;
        }
        all = true;
        if (stopAll != null) {
            stopAll.run(); // before the line, as above
        }
        err.println("\nllmperf4j: " + signal + " received: stopping, cancelling requests in flight and writing the "
                + "results recorded so far (again to quit at once)" + (severalLevels ? "; no further level starts" : ""));
        notifyAll();
        return true;
    }

    /** A signal after the stop: settles the results folder and says so in one line. */
    private void quit(String signal) {
        Supplier<String> settle = atQuit;
        atQuit = null;
        String said = settle == null ? null : settle.get();
        err.println("\nllmperf4j: " + signal + " received again: quitting at once"
                + (said == null ? "" : ": " + said));
        err.flush();
    }

    /** Whether everything was asked to stop. */
    synchronized boolean allStopped() {
        return all;
    }

    /** Whether any signal arrived (the exit code is then 130). */
    synchronized boolean interrupted() {
        return interrupted;
    }

    /**
     * Whether model {@code index} (0-based) of a comparison may start: nothing was stopped, and after the first the
     * pause between models passed without a stop.
     */
    boolean mayStartModel(int index, Duration pause) {
        return !allStopped() && (index == 0 || pause(pause));
    }

    /** Sleeps between models; false when everything was stopped meanwhile. */
    synchronized boolean pause(Duration pause) {
        long deadline = System.nanoTime() + pause.toNanos();
        while (!all) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return true;
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, remaining);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                all = true;
            }
        }
        return false;
    }
}

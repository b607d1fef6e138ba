package io.llmperf4j.run;

import io.llmperf4j.engine.Benchmark;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Ctrl-C (or SIGTERM) during token-benchmark's load runs, which are a sequence of levels (sweep levels, one per
 * model in a comparison):
 * <ul>
 *   <li>with several levels, the first signal during a level aborts that level (its requests in flight are
 *       cancelled; it is kept, marked aborted, with its failure rate) and the run goes on with the next level;</li>
 *   <li>a second signal during the same level, or one between levels, or the first when there is only one level,
 *       stops everything: the current level is aborted, no other starts, and every file is written;</li>
 *   <li>a signal after that quits at once.</li>
 * </ul>
 * A signal during a later level is again "first" for that level, so each slow level can be skipped in turn.
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

    /** @param severalLevels whether the run has more than one level in all (a sweep, or several models) */
    StopControl(PrintStream err, boolean severalLevels) {
        this.err = err;
        this.severalLevels = severalLevels;
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
            stopLevel.run();
        }
    }

    synchronized void detach() {
        stopLevel = null;
        stopAll = null;
        inLevel = false;
    }

    synchronized void levelStarted() {
        inLevel = true;
        levelSignals = 0;
    }

    synchronized void levelEnded() {
        inLevel = false;
    }

    @Override
    public synchronized boolean onSignal(String signal) {
        if (all) {
            return false;
        }
        interrupted = true;
        if (severalLevels && inLevel && levelSignals == 0) {
            levelSignals++;
            err.println("\nllmperf4j: " + signal + " received: aborting this level (its requests in flight are "
                    + "cancelled; it is kept, marked aborted, with its failure rate) and going on with the next; "
                    + "again to stop everything and write the results");
            if (stopLevel != null) {
                stopLevel.run();
            }
            return true;
        }
        all = true;
        err.println("\nllmperf4j: " + signal + " received: stopping, cancelling requests in flight and writing the "
                + "results recorded so far (again to quit at once)");
        if (stopAll != null) {
            stopAll.run();
        }
        notifyAll();
        return true;
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

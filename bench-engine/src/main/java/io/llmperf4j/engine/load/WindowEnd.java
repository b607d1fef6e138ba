package io.llmperf4j.engine.load;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Where a run's measured window ends ({@link System#nanoTime()}): when the last measured request ended on the wire,
 * answered or cancelled (a stop or the deadline cancels those then on the wire, which end when the cancel takes
 * effect), so the window holds every record it counts; when sending closed if none ended, or if the close cut an
 * open loop's schedule ({@link #scheduleCut}). Never when the run's
 * thread finished counting their tokens, which may lag far behind the wire (a slow tokenizer, degenerate answers):
 * the window (duration, request rate, throughput) is the server's work, not the client's. One per run, shared by the
 * closed loop, the open loop and the session runner; any thread.
 */
final class WindowEnd {
    /** The last measured request's end on the wire, or -1 before any. */
    private final AtomicLong lastWireEnd = new AtomicLong(-1);
    private volatile long closedNanos;
    /** The close cut an open loop's schedule (arrivals still due): the load ran until it. */
    private volatile boolean scheduleCut;

    /** A measured request was over on the wire at {@code nanoTime}; the latest of them counts. */
    void wireEnded(long nanoTime) {
        lastWireEnd.updateAndGet(last -> last == -1 || nanoTime - last > 0 ? nanoTime : last);
    }

    /** Sending closes now (the caller calls this once); returns the stamp. */
    long closed() {
        long now = System.nanoTime();
        closedNanos = now;
        return now;
    }

    /**
     * The close about to come is a stop or the deadline cutting an open loop's schedule, arrivals still due: the
     * window runs to it even when the last request had ended before (nothing in flight between two arrivals), since
     * the load was offered until then (QA: a 0.3 req/s loop stopped 2 s in with one 65 ms answer reported 15.3 req/s).
     */
    void scheduleCut() {
        scheduleCut = true;
    }

    /** The window's end, as above. */
    long nanos() {
        long wireEnd = lastWireEnd.get();
        if (wireEnd == -1) return closedNanos;
        return scheduleCut && closedNanos - wireEnd > 0 ? closedNanos : wireEnd;
    }
}

package io.llmperf4j.engine.load;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Where a run's measured window ends ({@link System#nanoTime()}): when the last measured request ended on the wire,
 * answered or cancelled (a stop or the deadline cancels those then on the wire, which end when the cancel takes
 * effect), so the window holds every record it counts; when sending closed only if none ended. Never when the run's
 * thread finished counting their tokens, which may lag far behind the wire (a slow tokenizer, degenerate answers):
 * the window (duration, request rate, throughput) is the server's work, not the client's. One per run, shared by the
 * closed loop, the open loop and the session runner; any thread.
 */
final class WindowEnd {
    /** The last measured request's end on the wire, or -1 before any. */
    private final AtomicLong lastWireEnd = new AtomicLong(-1);
    private volatile long closedNanos;

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

    /** The window's end, as above. */
    long nanos() {
        long wireEnd = lastWireEnd.get();
        return wireEnd != -1 ? wireEnd : closedNanos;
    }
}

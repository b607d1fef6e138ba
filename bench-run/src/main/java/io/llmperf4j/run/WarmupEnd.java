package io.llmperf4j.run;

import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.engine.load.Warmup;

/**
 * Tells, from a level's records as they come in, after which warmup record the server's counters are to be read
 * (the measured requests' baseline). A warmup of n requests has ended with its n-th record. One by duration has an
 * unknown number of requests: every warmup record that comes in once the duration has passed since the level's start
 * may be its last, so each asks for a read (the latest one is the baseline); at most as many as were in flight then.
 */
final class WarmupEnd {

    /** The warmup's request count, or -1 for a warmup by duration. */
    private final int count;
    /** A warmup by duration: when sending warmup requests stops at the earliest ({@link System#nanoTime()}). */
    private final long sendingEndsNanos;
    private int warmupRecords;

    private WarmupEnd(int count, long sendingEndsNanos) {
        this.count = count;
        this.sendingEndsNanos = sendingEndsNanos;
    }

    /** The tracker for a level's warmup, the level starting at {@code levelStartNanos}; null without warmup. */
    static WarmupEnd of(Warmup warmup, long levelStartNanos) {
        if (warmup instanceof Warmup.ForRequests r) return r.count() > 0 ? new WarmupEnd(r.count(), 0) : null;
        if (warmup instanceof Warmup.ForDuration d) return new WarmupEnd(-1, levelStartNanos + d.duration().toNanos());
        return null;
    }

    /** True for a record, come in at {@code nowNanos}, after which no warmup request may be left in flight. */
    boolean mayEndWith(ScheduledRecord record, long nowNanos) {
        if (!record.warmup()) return false;
        warmupRecords++;
        return count > 0 ? warmupRecords == count : nowNanos - sendingEndsNanos >= 0;
    }
}

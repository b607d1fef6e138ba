package io.llmperf4j.run;

import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.engine.load.Warmup;

/**
 * Tells, from a level's records as they come in, the moment its last warmup request has ended, so the server's
 * counters can be read there (their baseline for the measured requests). A warmup of n requests has ended with its
 * n-th record; one by duration, once every launch number below the lowest measured one seen has come back as a
 * warmup record (warmup requests are launched, and numbered, before the measured ones).
 */
final class WarmupEnd {

    /** The warmup's request count, or -1 for a warmup by duration. */
    private final int count;
    private int warmupRecords;
    private int lowestMeasured = Integer.MAX_VALUE;
    private boolean ended;

    private WarmupEnd(int count) {
        this.count = count;
    }

    /** The tracker for a level's warmup, or null without one. */
    static WarmupEnd of(Warmup warmup) {
        if (warmup instanceof Warmup.ForRequests r) return r.count() > 0 ? new WarmupEnd(r.count()) : null;
        if (warmup instanceof Warmup.ForDuration) return new WarmupEnd(-1);
        return null;
    }

    /** True once, for the record after which no warmup request is left in flight. */
    boolean endedWith(ScheduledRecord record) {
        if (ended) return false;
        if (record.warmup()) {
            warmupRecords++;
        } else {
            lowestMeasured = Math.min(lowestMeasured, record.arrivalIndex());
        }
        ended = count > 0 ? warmupRecords >= count : warmupRecords > 0 && warmupRecords >= lowestMeasured;
        return ended;
    }
}

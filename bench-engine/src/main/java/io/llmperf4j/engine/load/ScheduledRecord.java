package io.llmperf4j.engine.load;

import io.llmperf4j.model.RequestRecord;

import java.util.Collection;
import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * A {@link RequestRecord} with when it was meant to be sent and when it was: the engine's addition to the shared
 * record, which stays as it is. Offsets are nanoseconds from the run's start ({@code System.nanoTime()} just before
 * the first send; the result's {@code startEpochMillis} anchors it to the wall clock).
 *
 * <p>The record's own times ({@code ttftNanos}, {@code e2eNanos}, ...) count from the client's send, which
 * {@link io.llmperf4j.engine.client.LlmClient#send} stamps: the open loop and sessions record that stamp as
 * {@code actualSendOffsetNanos} ({@link SendStamps}), so the start lag plus TTFT leaves nothing out; a closed loop records
 * the same stamp (before, it stamped when the slot freed, before the prompt was taken and the body built, so its
 * timeline ran early by that time). Latencies
 * "from intended" add the start lag: that is the response time a user arriving on schedule would see, queueing behind
 * a concurrency cap or a late pacer included (no coordinated omission). In a closed loop the intended send is the
 * moment the slot freed, which is when it sends: both offsets are equal; but a turn of a multi-turn session
 * ({@link SessionRunner}) is due when its session's previous turn ended plus its think time, so a think time the
 * client overran is send lag there too.
 *
 * <p>The send lag counts to when the request left the client, not to the start stamp: a request whose connection
 * was idle but reached the wire late (a hand-off to an event loop kept busy or cold, a long write) reached the server
 * that much later than its schedule, though its start stamp was on time. So {@link #sendLagNanos} adds the client's
 * own delay after the start stamp ({@link io.llmperf4j.engine.client.RequestHandle#clientDelayNanos}: not the wait
 * for a connection held by other requests, not a connect), and the latencies "from intended" count, as TTFT does,
 * from the start stamp: a client delay is in TTFT already (as the field's tools, whose clocks start before the POST,
 * count it), so there send lag plus TTFT would count it twice.
 *
 * @param record                  the request's record (output tokens counted)
 * @param arrivalIndex            the arrival (open loop) or launch (closed loop) number, 0-based, warmup included
 * @param intendedSendOffsetNanos when the schedule wanted the request sent
 * @param actualSendOffsetNanos   the client's start stamp (or, where the client gives none, just before the request
 *                                was handed to it)
 * @param warmup                  a warmup request, excluded from results
 * @param clientDelayNanos        the client's own delay between the start stamp and the request's last byte in the
 *                                socket (0 where unknown, and in a closed loop, whose sends have no schedule)
 */
public record ScheduledRecord(RequestRecord record, int arrivalIndex, long intendedSendOffsetNanos,
                              long actualSendOffsetNanos, boolean warmup, long clientDelayNanos) {

    public ScheduledRecord {
        Objects.requireNonNull(record, "record");
        clientDelayNanos = Math.max(0, clientDelayNanos);
    }

    /** Without a client delay known. */
    public ScheduledRecord(RequestRecord record, int arrivalIndex, long intendedSendOffsetNanos,
                           long actualSendOffsetNanos, boolean warmup) {
        this(record, arrivalIndex, intendedSendOffsetNanos, actualSendOffsetNanos, warmup, 0);
    }

    /**
     * How late the request left the client: from its intended send to its start stamp (queueing behind a cap, pacer
     * lag) plus the client's own delay after it ({@link #clientDelayNanos}), &gt;= 0 in practice.
     */
    public long sendLagNanos() {
        return startLagNanos() + clientDelayNanos;
    }

    /** From the intended send to the client's start stamp, where TTFT and E2E begin. */
    public long startLagNanos() {
        return actualSendOffsetNanos - intendedSendOffsetNanos;
    }

    /** When the request left the client, from the run's start: its start stamp plus the client's own delay. */
    public long leftClientOffsetNanos() {
        return actualSendOffsetNanos + clientDelayNanos;
    }

    /** Intended send to first content, or {@link RequestRecord#NEVER}. */
    public long ttftFromIntendedNanos() {
        return record.ttftNanos() == RequestRecord.NEVER ? RequestRecord.NEVER : startLagNanos() + record.ttftNanos();
    }

    /** Intended send to the end of the response (or the failure). */
    public long e2eFromIntendedNanos() {
        return startLagNanos() + record.e2eNanos();
    }

    /** When the request ended, from the run's start. */
    public long endOffsetNanos() {
        return actualSendOffsetNanos + record.e2eNanos();
    }

    public ScheduledRecord withRecord(RequestRecord r) {
        return new ScheduledRecord(r, arrivalIndex, intendedSendOffsetNanos, actualSendOffsetNanos, warmup,
                clientDelayNanos);
    }

    /**
     * The schedule's rate convention, (n − 1) / (last − first), over {@code instant} of each record (its send, its
     * end): per second; NaN below two records or when they share one instant.
     */
    public static double perSecondFirstToLast(Collection<ScheduledRecord> records,
                                              ToLongFunction<ScheduledRecord> instant) {
        if (records.size() < 2) return Double.NaN;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (ScheduledRecord r : records) {
            long at = instant.applyAsLong(r);
            first = Math.min(first, at);
            last = Math.max(last, at);
        }
        return last > first ? (records.size() - 1) / ((last - first) / 1e9) : Double.NaN;
    }
}

package io.llmperf4j.engine.load;

import io.llmperf4j.model.ClientOverhead;
import io.llmperf4j.model.RequestRecord;

import java.util.List;

/**
 * What a run produced, either loop. Offsets count from the run's start (just before the first send); the measured
 * window runs from {@link #measureStartOffsetNanos()} for {@link #durationNanos()}.
 */
public sealed interface LoadResult permits ClosedLoopResult, OpenLoopResult {

    /** Measured records (warmup excluded), in completion order: successes, failures, cancellations. */
    List<RequestRecord> records();

    /** Warmup records, in completion order; excluded from every result. */
    List<RequestRecord> warmupRecords();

    /** Every record (warmup included, flagged) with its send offsets, in completion order. */
    List<ScheduledRecord> timeline();

    /** Wall clock at the start of the measured window. */
    long startEpochMillis();

    /** Wall clock at the end of the measured window. */
    long endEpochMillis();

    /**
     * Monotonic length of the measured window: its start to the last measured request's end on the wire, or to the
     * stop or timeout that cancelled those still on it. Not to the end of the client's token counting, which may lag.
     */
    long durationNanos();

    /** The measured window's start, from the run's start (0 without warmup). */
    long measureStartOffsetNanos();

    /** Measured requests handed to the client; equals {@code records().size()}. */
    int requestsSent();

    /** The timeout ended the run (in-flight requests were cancelled). */
    boolean timedOut();

    /** A stop or an interrupt ended the run. */
    boolean stopped();

    /** How busy the client itself was during the run (warmup included), or null when not measured. */
    ClientOverhead clientOverhead();

    /**
     * Connect times (TCP and TLS, nanoseconds) of the connections the client opened just before this run's clock
     * started, one per connection, in the order they became ready; empty when none were opened (another connection
     * mode, or enough were open already, e.g. from the previous sweep level). Not part of any request's TTFT.
     */
    long[] preconnectNanos();

    /**
     * Where the run's clock started, on {@link System#nanoTime()} of the machine that ran it: the origin of every
     * offset here (an open loop's schedule origin), after the connections of {@link #preconnectNanos()} were open. A
     * load worker places its records on a cluster's shared timeline by it. 0 when no runner made this result.
     */
    long clockStartNanos();

    /**
     * Multi-turn sessions: the turns of the sessions in progress (that had sent one) never sent when the run ended (a
     * stop, the timeout, the request budget); 0 for a run without sessions.
     */
    int turnsNotSent();

    /**
     * The measured window's start on {@link System#nanoTime()} (a closed loop's first measured send, an open loop's
     * first measured arrival): the client's overhead is judged from there, past the warmup.
     */
    default long windowStartNanoTime() {
        return clockStartNanos() + measureStartOffsetNanos();
    }

    /** The load that ran. */
    LoadSettings settings();

    /** Measured entries of {@link #timeline()}. */
    default List<ScheduledRecord> measuredTimeline() {
        return timeline().stream().filter(r -> !r.warmup()).toList();
    }

    /** The run's end, from its start. */
    default long endOffsetNanos() {
        return measureStartOffsetNanos() + durationNanos();
    }
}

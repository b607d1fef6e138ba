package io.llmperf4j.engine.load;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.ClientOverhead;
import io.llmperf4j.model.RequestRecord;

import java.util.List;
import java.util.Objects;

/**
 * What a closed-loop run produced.
 *
 * @param records                 measured records (warmup excluded), in completion order (successes, failures,
 *                                cancellations)
 * @param startEpochMillis        wall clock at the start of the measured window (just before the first send without
 *                                warmup)
 * @param endEpochMillis          wall clock at the end of the measured window
 * @param durationNanos           monotonic time from the start of the measured window to its end (llmperf's
 *                                end_time - start_time): the last measured request's end on the wire, or the stop or
 *                                timeout that cancelled those still on it; never the end of the client's counting
 * @param requestsSent            measured requests handed to the client; equals {@code records.size()}
 * @param timedOut                the timeout ended the run (in-flight requests were cancelled)
 * @param stopped                 {@link ClosedLoopRunner#stop()} or an interrupt ended the run
 * @param warmupRecords           warmup records, in completion order
 * @param timeline                every record with its send offset, warmup flagged, in completion order
 * @param measureStartOffsetNanos the first measured send, from the run's start (0 without warmup)
 * @param settings                the settings that ran
 * @param clientOverhead          how busy the client itself was during the run (warmup included), or null
 * @param preconnectNanos         connect times of the connections opened before the run's clock started
 *                                ({@link io.llmperf4j.engine.client.ConnectionMode#PRECONNECT}); empty when none
 * @param clockStartNanos         the run's clock start ({@link LoadResult#clockStartNanos()}); 0 when no runner made
 *                                this result
 * @param turnsNotSent            multi-turn sessions: the turns of sessions started and not ended that were never
 *                                sent when the run ended (its timeout, a stop, the request budget); 0 otherwise
 */
public record ClosedLoopResult(
        List<RequestRecord> records,
        long startEpochMillis,
        long endEpochMillis,
        long durationNanos,
        int requestsSent,
        boolean timedOut,
        boolean stopped,
        List<RequestRecord> warmupRecords,
        List<ScheduledRecord> timeline,
        long measureStartOffsetNanos,
        ClosedLoopSettings settings,
        ClientOverhead clientOverhead,
        long[] preconnectNanos,
        long clockStartNanos,
        int turnsNotSent) implements LoadResult {

    /** A result without sessions' unsent turns. */
    public ClosedLoopResult(List<RequestRecord> records, long startEpochMillis, long endEpochMillis,
                            long durationNanos, int requestsSent, boolean timedOut, boolean stopped,
                            List<RequestRecord> warmupRecords, List<ScheduledRecord> timeline,
                            long measureStartOffsetNanos, ClosedLoopSettings settings, ClientOverhead clientOverhead,
                            long[] preconnectNanos, long clockStartNanos) {
        this(records, startEpochMillis, endEpochMillis, durationNanos, requestsSent, timedOut, stopped, warmupRecords,
                timeline, measureStartOffsetNanos, settings, clientOverhead, preconnectNanos, clockStartNanos, 0);
    }

    public ClosedLoopResult {
        preconnectNanos = preconnectNanos == null ? new long[0] : preconnectNanos.clone();
        records = List.copyOf(records);
        warmupRecords = List.copyOf(warmupRecords);
        timeline = List.copyOf(timeline);
        Objects.requireNonNull(settings, "settings");
    }

    /** A result without preconnected connections. */
    public ClosedLoopResult(List<RequestRecord> records, long startEpochMillis, long endEpochMillis,
                            long durationNanos, int requestsSent, boolean timedOut, boolean stopped,
                            List<RequestRecord> warmupRecords, List<ScheduledRecord> timeline,
                            long measureStartOffsetNanos, ClosedLoopSettings settings, ClientOverhead clientOverhead) {
        this(records, startEpochMillis, endEpochMillis, durationNanos, requestsSent, timedOut, stopped, warmupRecords,
                timeline, measureStartOffsetNanos, settings, clientOverhead, null, 0);
    }

    /** A result without a measurement of the client's overhead. */
    public ClosedLoopResult(List<RequestRecord> records, long startEpochMillis, long endEpochMillis,
                            long durationNanos, int requestsSent, boolean timedOut, boolean stopped,
                            List<RequestRecord> warmupRecords, List<ScheduledRecord> timeline,
                            long measureStartOffsetNanos, ClosedLoopSettings settings) {
        this(records, startEpochMillis, endEpochMillis, durationNanos, requestsSent, timedOut, stopped, warmupRecords,
                timeline, measureStartOffsetNanos, settings, null);
    }

    /** A copy with the client's overhead. */
    public ClosedLoopResult withClientOverhead(ClientOverhead overhead) {
        return new ClosedLoopResult(records, startEpochMillis, endEpochMillis, durationNanos, requestsSent, timedOut,
                stopped, warmupRecords, timeline, measureStartOffsetNanos, settings, overhead, preconnectNanos,
                clockStartNanos, turnsNotSent);
    }

    /** A copy with the connect times of the connections opened before the clock started. */
    public ClosedLoopResult withPreconnect(long[] connectNanos) {
        return new ClosedLoopResult(records, startEpochMillis, endEpochMillis, durationNanos, requestsSent, timedOut,
                stopped, warmupRecords, timeline, measureStartOffsetNanos, settings, clientOverhead, connectNanos,
                clockStartNanos, turnsNotSent);
    }

    /** A copy with the run's clock start. */
    public ClosedLoopResult withClockStart(long nanos) {
        return new ClosedLoopResult(records, startEpochMillis, endEpochMillis, durationNanos, requestsSent, timedOut,
                stopped, warmupRecords, timeline, measureStartOffsetNanos, settings, clientOverhead, preconnectNanos,
                nanos, turnsNotSent);
    }

    /** A copy with the sessions' turns left unsent. */
    public ClosedLoopResult withTurnsNotSent(int turns) {
        return new ClosedLoopResult(records, startEpochMillis, endEpochMillis, durationNanos, requestsSent, timedOut,
                stopped, warmupRecords, timeline, measureStartOffsetNanos, settings, clientOverhead, preconnectNanos,
                clockStartNanos, turns);
    }

    @Override
    public long[] preconnectNanos() {
        return preconnectNanos.clone();
    }

    /** The run as the report's model, with the settings the user gave; warmup records are not part of it. */
    public BenchmarkRun toBenchmarkRun(BenchmarkSettings benchmarkSettings) {
        return new BenchmarkRun(benchmarkSettings, records, startEpochMillis, endEpochMillis, durationNanos,
                requestsSent, timedOut, clientOverhead);
    }
}

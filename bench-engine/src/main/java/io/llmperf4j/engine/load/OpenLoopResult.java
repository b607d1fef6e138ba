package io.llmperf4j.engine.load;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.ClientOverhead;
import io.llmperf4j.model.RequestRecord;
import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * What an open-loop run produced. {@link #timeline()} keeps each request's intended and actual send offsets;
 * {@link #summary()} condenses them (offered vs achieved rate, send lag, backlog, latencies from the intended and
 * from the actual send).
 *
 * @param records                     measured records, in completion order
 * @param warmupRecords               warmup records, in completion order
 * @param timeline                    every record with its send offsets, warmup flagged, in completion order
 * @param startEpochMillis            wall clock at the start of the measured window
 * @param endEpochMillis              wall clock at the end of the measured window
 * @param durationNanos               start of the measured window (its first intended send, or the end of a timed
 *                                    warmup) to its end, the drain included: the last measured request's end on the
 *                                    wire, or the stop or timeout that cancelled those still on it; never the end of
 *                                    the client's counting
 * @param measureStartOffsetNanos     the measured window's start, from the schedule's origin
 * @param requestsSent                measured requests handed to the client; equals {@code records.size()}
 * @param timedOut                    the timeout ended the run
 * @param stopped                     a stop or an interrupt ended the run
 * @param settings                    what ran
 * @param warmupArrivals              warmup arrivals in the schedule
 * @param measuredArrivals            measured arrivals in the schedule
 * @param arrivalsNotSent             scheduled arrivals never sent because the run ended first (warmup or measured)
 * @param maxBacklog                  the most arrivals that were due but not yet sent (queued behind the cap or a
 *                                    late pacer), sampled right after each send, before the send of an arrival
 *                                    that found the cap full (itself counted: it waited), and at the end
 * @param scheduledRequestsPerSecond  the schedule's own rate over measured arrivals: (n - 1) / (last - first
 *                                    intended), NaN below 2
 * @param achievedSendRequestsPerSecond the same over actual send times of measured requests, NaN below 2
 * @param clientOverhead              how busy the client itself was during the run (warmup included), or null
 * @param preconnectNanos             connect times of the connections opened before the schedule's clock started
 *                                    ({@link io.llmperf4j.engine.client.ConnectionMode#PRECONNECT}); empty when none
 * @param clockStartNanos             the schedule's origin ({@link LoadResult#clockStartNanos()}); 0 when no runner
 *                                    made this result
 * @param turnsNotSent                multi-turn sessions: the turns of sessions in progress (that had sent one) never
 *                                    sent when the run ended (a stop, the timeout, the request budget); 0 otherwise
 * @param unsentOfLostWorkersNanos    a distributed run: the intended sends of the measured arrivals never sent because
 *                                    their load worker left the cluster (among {@code arrivalsNotSent}); none otherwise
 */
public record OpenLoopResult(
        List<RequestRecord> records,
        List<RequestRecord> warmupRecords,
        List<ScheduledRecord> timeline,
        long startEpochMillis,
        long endEpochMillis,
        long durationNanos,
        long measureStartOffsetNanos,
        int requestsSent,
        boolean timedOut,
        boolean stopped,
        OpenLoopSettings settings,
        int warmupArrivals,
        int measuredArrivals,
        int arrivalsNotSent,
        int maxBacklog,
        double scheduledRequestsPerSecond,
        double achievedSendRequestsPerSecond,
        ClientOverhead clientOverhead,
        long[] preconnectNanos,
        long clockStartNanos,
        int turnsNotSent,
        long[] unsentOfLostWorkersNanos) implements LoadResult {

    public OpenLoopResult {
        preconnectNanos = preconnectNanos == null ? new long[0] : preconnectNanos.clone();
        unsentOfLostWorkersNanos = unsentOfLostWorkersNanos == null ? new long[0] : unsentOfLostWorkersNanos.clone();
        records = List.copyOf(records);
        warmupRecords = List.copyOf(warmupRecords);
        timeline = List.copyOf(timeline);
        Objects.requireNonNull(settings, "settings");
    }

    /** A result without sessions' turns not sent. */
    public OpenLoopResult(List<RequestRecord> records, List<RequestRecord> warmupRecords,
                          List<ScheduledRecord> timeline, long startEpochMillis, long endEpochMillis,
                          long durationNanos, long measureStartOffsetNanos, int requestsSent, boolean timedOut,
                          boolean stopped, OpenLoopSettings settings, int warmupArrivals, int measuredArrivals,
                          int arrivalsNotSent, int maxBacklog, double scheduledRequestsPerSecond,
                          double achievedSendRequestsPerSecond, ClientOverhead clientOverhead, long[] preconnectNanos,
                          long clockStartNanos) {
        this(records, warmupRecords, timeline, startEpochMillis, endEpochMillis, durationNanos,
                measureStartOffsetNanos, requestsSent, timedOut, stopped, settings, warmupArrivals, measuredArrivals,
                arrivalsNotSent, maxBacklog, scheduledRequestsPerSecond, achievedSendRequestsPerSecond, clientOverhead,
                preconnectNanos, clockStartNanos, 0, null);
    }

    /** A result without preconnected connections. */
    public OpenLoopResult(List<RequestRecord> records, List<RequestRecord> warmupRecords,
                          List<ScheduledRecord> timeline, long startEpochMillis, long endEpochMillis,
                          long durationNanos, long measureStartOffsetNanos, int requestsSent, boolean timedOut,
                          boolean stopped, OpenLoopSettings settings, int warmupArrivals, int measuredArrivals,
                          int arrivalsNotSent, int maxBacklog, double scheduledRequestsPerSecond,
                          double achievedSendRequestsPerSecond, ClientOverhead clientOverhead) {
        this(records, warmupRecords, timeline, startEpochMillis, endEpochMillis, durationNanos,
                measureStartOffsetNanos, requestsSent, timedOut, stopped, settings, warmupArrivals, measuredArrivals,
                arrivalsNotSent, maxBacklog, scheduledRequestsPerSecond, achievedSendRequestsPerSecond, clientOverhead,
                null, 0);
    }

    /** A result without a measurement of the client's overhead. */
    public OpenLoopResult(List<RequestRecord> records, List<RequestRecord> warmupRecords,
                          List<ScheduledRecord> timeline, long startEpochMillis, long endEpochMillis,
                          long durationNanos, long measureStartOffsetNanos, int requestsSent, boolean timedOut,
                          boolean stopped, OpenLoopSettings settings, int warmupArrivals, int measuredArrivals,
                          int arrivalsNotSent, int maxBacklog, double scheduledRequestsPerSecond,
                          double achievedSendRequestsPerSecond) {
        this(records, warmupRecords, timeline, startEpochMillis, endEpochMillis, durationNanos,
                measureStartOffsetNanos, requestsSent, timedOut, stopped, settings, warmupArrivals, measuredArrivals,
                arrivalsNotSent, maxBacklog, scheduledRequestsPerSecond, achievedSendRequestsPerSecond, null);
    }

    /** A copy with the client's overhead. */
    public OpenLoopResult withClientOverhead(ClientOverhead overhead) {
        return copyWith(overhead, preconnectNanos, clockStartNanos, turnsNotSent, unsentOfLostWorkersNanos);
    }

    /** A copy with the connect times of the connections opened before the clock started. */
    public OpenLoopResult withPreconnect(long[] connectNanos) {
        return copyWith(clientOverhead, connectNanos, clockStartNanos, turnsNotSent, unsentOfLostWorkersNanos);
    }

    /** A copy with the schedule's origin. */
    public OpenLoopResult withClockStart(long nanos) {
        return copyWith(clientOverhead, preconnectNanos, nanos, turnsNotSent, unsentOfLostWorkersNanos);
    }

    /** A copy with the sessions' turns not sent. */
    public OpenLoopResult withTurnsNotSent(int turns) {
        return copyWith(clientOverhead, preconnectNanos, clockStartNanos, turns, unsentOfLostWorkersNanos);
    }

    /**
     * A copy with the intended sends (offsets from the schedule's origin) of the measured arrivals a distributed
     * run's load workers never sent because they left the cluster mid-run: not a stop or a timeout's cut, so the
     * keep-up verdict counts them as arrivals not served.
     */
    public OpenLoopResult withUnsentOfLostWorkers(long[] intendedNanos) {
        return copyWith(clientOverhead, preconnectNanos, clockStartNanos, turnsNotSent, intendedNanos);
    }

    /** A copy with the run's own fields as they are and the later-added ones (what the with* methods set) given. */
    private OpenLoopResult copyWith(ClientOverhead overhead, long[] preconnect, long clockStart, int turns,
                                     long[] unsentOfLostWorkers) {
        return new OpenLoopResult(records, warmupRecords, timeline, startEpochMillis, endEpochMillis, durationNanos,
                measureStartOffsetNanos, requestsSent, timedOut, stopped, settings, warmupArrivals, measuredArrivals,
                arrivalsNotSent, maxBacklog, scheduledRequestsPerSecond, achievedSendRequestsPerSecond, overhead,
                preconnect, clockStart, turns, unsentOfLostWorkers);
    }

    @Override
    public long[] preconnectNanos() {
        return preconnectNanos.clone();
    }

    @Override
    public long[] unsentOfLostWorkersNanos() {
        return unsentOfLostWorkersNanos.clone();
    }

    /** Send lag (actual minus intended, ns) of every measured request, in a fresh histogram (3 digits). */
    public Histogram sendLagHistogram() {
        return histogram(ScheduledRecord::sendLagNanos, false);
    }

    /** TTFT from the intended send of measured successes: queueing and send lag included. */
    public Histogram ttftFromIntendedHistogram() {
        return histogram(ScheduledRecord::ttftFromIntendedNanos, true);
    }

    /** TTFT from the actual send of measured successes (service time only, as closed-loop tools report). */
    public Histogram ttftFromActualHistogram() {
        return histogram(r -> r.record().ttftNanos(), true);
    }

    public Histogram e2eFromIntendedHistogram() {
        return histogram(ScheduledRecord::e2eFromIntendedNanos, true);
    }

    public Histogram e2eFromActualHistogram() {
        return histogram(r -> r.record().e2eNanos(), true);
    }

    /**
     * The figures a report needs about the schedule and its latencies. Percentiles are llmperf4j's one definition
     * over the exact nanoseconds ({@link LatencyPercentiles#of(long[])}), not the histograms above, so TTFT and E2E
     * from the actual send equal the summary's and "from intended" is never below "from actual".
     */
    public OpenLoopSummary summary() {
        long successes = records.stream().filter(RequestRecord::succeeded).count();
        double seconds = durationNanos / 1e9;
        return new OpenLoopSummary(settings.requestsPerSecond(), scheduledRequestsPerSecond,
                achievedSendRequestsPerSecond, seconds > 0 ? successes / seconds : Double.NaN, measuredArrivals,
                requestsSent, (int) successes, arrivalsNotSent, maxBacklog,
                LatencyPercentiles.of(values(ScheduledRecord::sendLagNanos, false)),
                LatencyPercentiles.of(values(ScheduledRecord::ttftFromIntendedNanos, true)),
                LatencyPercentiles.of(values(r -> r.record().ttftNanos(), true)),
                LatencyPercentiles.of(values(ScheduledRecord::e2eFromIntendedNanos, true)),
                LatencyPercentiles.of(values(r -> r.record().e2eNanos(), true)));
    }

    /** The measured requests as the report's model (latencies there count from the actual send). */
    public BenchmarkRun toBenchmarkRun(BenchmarkSettings benchmarkSettings) {
        return new BenchmarkRun(benchmarkSettings, records, startEpochMillis, endEpochMillis, durationNanos,
                requestsSent, timedOut, clientOverhead);
    }

    /** The measured requests' values ({@code successesOnly}: of successes), negatives (never) left out. */
    private long[] values(ToLongFunction<ScheduledRecord> value, boolean successesOnly) {
        return timeline.stream().filter(r -> !r.warmup() && (!successesOnly || r.record().succeeded()))
                .mapToLong(value).filter(v -> v >= 0).toArray();
    }

    private Histogram histogram(ToLongFunction<ScheduledRecord> value, boolean successesOnly) {
        Histogram h = new Histogram(3);
        for (ScheduledRecord r : timeline) {
            if (r.warmup() || (successesOnly && !r.record().succeeded())) continue;
            long v = value.applyAsLong(r);
            if (v >= 0) h.recordValue(v);
        }
        return h;
    }
}

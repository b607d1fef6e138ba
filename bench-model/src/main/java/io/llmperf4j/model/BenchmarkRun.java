package io.llmperf4j.model;

import java.util.List;
import java.util.Objects;

/**
 * The outcome of one run: its settings and every recorded request, in completion order.
 *
 * @param settings        what was asked for
 * @param records         one record per request that reached an outcome (successes, failures, cancellations)
 * @param startEpochMillis wall-clock start of the measured window
 * @param endEpochMillis   wall-clock end of the measured window
 * @param durationNanos    monotonic length of the measured window (llmperf's end_time - start_time)
 * @param requestsSent     requests the client put on the wire
 * @param timedOut         true when the run stopped because of its timeout
 * @param clientOverhead   how busy the client itself was during the run, or null when not measured
 * @param preconnectNanos  connect time (TCP and TLS) of each connection opened before the measured window started,
 *                         so no request paid it; empty when none was opened ahead (a copy is kept and returned)
 */
public record BenchmarkRun(
        BenchmarkSettings settings,
        List<RequestRecord> records,
        long startEpochMillis,
        long endEpochMillis,
        long durationNanos,
        int requestsSent,
        boolean timedOut,
        ClientOverhead clientOverhead,
        long[] preconnectNanos) {

    public BenchmarkRun {
        Objects.requireNonNull(settings, "settings");
        records = List.copyOf(records);
        preconnectNanos = preconnectNanos == null ? new long[0] : preconnectNanos.clone();
    }

    /** A run without connections opened before the clock. */
    public BenchmarkRun(BenchmarkSettings settings, List<RequestRecord> records, long startEpochMillis,
                        long endEpochMillis, long durationNanos, int requestsSent, boolean timedOut,
                        ClientOverhead clientOverhead) {
        this(settings, records, startEpochMillis, endEpochMillis, durationNanos, requestsSent, timedOut,
                clientOverhead, new long[0]);
    }

    /** A run without a measurement of the client's own overhead. */
    public BenchmarkRun(BenchmarkSettings settings, List<RequestRecord> records, long startEpochMillis,
                        long endEpochMillis, long durationNanos, int requestsSent, boolean timedOut) {
        this(settings, records, startEpochMillis, endEpochMillis, durationNanos, requestsSent, timedOut, null,
                new long[0]);
    }

    /** A copy of the connect times of the connections opened before the clock. */
    @Override
    public long[] preconnectNanos() {
        return preconnectNanos.clone();
    }

    /** A copy with the connect times of the connections opened before the clock, everything else kept. */
    public BenchmarkRun withPreconnectNanos(long[] connects) {
        return new BenchmarkRun(settings, records, startEpochMillis, endEpochMillis, durationNanos, requestsSent,
                timedOut, clientOverhead, connects);
    }

    /** A copy with other records (re-counted tokens, say), everything else kept. */
    public BenchmarkRun withRecords(List<RequestRecord> newRecords) {
        return new BenchmarkRun(settings, newRecords, startEpochMillis, endEpochMillis, durationNanos, requestsSent,
                timedOut, clientOverhead, preconnectNanos);
    }
}

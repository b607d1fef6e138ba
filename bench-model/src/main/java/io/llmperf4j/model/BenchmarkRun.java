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
 */
public record BenchmarkRun(
        BenchmarkSettings settings,
        List<RequestRecord> records,
        long startEpochMillis,
        long endEpochMillis,
        long durationNanos,
        int requestsSent,
        boolean timedOut) {

    public BenchmarkRun {
        Objects.requireNonNull(settings, "settings");
        records = List.copyOf(records);
    }
}

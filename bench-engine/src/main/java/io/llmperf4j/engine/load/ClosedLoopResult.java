package io.llmperf4j.engine.load;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.RequestRecord;

import java.util.List;

/**
 * What a closed-loop run produced.
 *
 * @param records          every request that was sent, in completion order (successes, failures, cancellations)
 * @param startEpochMillis wall clock just before the first send
 * @param endEpochMillis   wall clock after the last record
 * @param durationNanos    monotonic time from just before the first send to after the last record (llmperf's
 *                         end_time - start_time)
 * @param requestsSent     requests handed to the client; equals {@code records.size()}
 * @param timedOut         the timeout ended the run (in-flight requests were cancelled)
 * @param stopped          {@link ClosedLoopRunner#stop()} or an interrupt ended the run
 */
public record ClosedLoopResult(
        List<RequestRecord> records,
        long startEpochMillis,
        long endEpochMillis,
        long durationNanos,
        int requestsSent,
        boolean timedOut,
        boolean stopped) {

    public ClosedLoopResult {
        records = List.copyOf(records);
    }

    /** The run as the report's model, with the settings the user gave. */
    public BenchmarkRun toBenchmarkRun(BenchmarkSettings settings) {
        return new BenchmarkRun(settings, records, startEpochMillis, endEpochMillis, durationNanos, requestsSent,
                timedOut);
    }
}

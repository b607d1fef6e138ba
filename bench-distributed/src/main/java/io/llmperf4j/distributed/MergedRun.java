package io.llmperf4j.distributed;

import io.llmperf4j.engine.load.ClosedLoopResult;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.LoadResult;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.OpenLoopResult;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.model.ClientOverhead;
import io.llmperf4j.model.RequestRecord;

import java.util.List;

/**
 * The workers' results as one run: what a single machine's runner would have returned.
 *
 * @param records          every record, each with its worker, in (estimated) completion order
 * @param timeline         the same with send offsets from the shared start
 * @param startEpochMillis the measured window's start: the shared start instant (coordinator's wall clock), plus
 *                         the warmup
 * @param endEpochMillis   the start plus the duration
 * @param durationNanos    the measured window: the first worker's measured start to the last worker's end, each
 *                         worker's part on its own monotonic clock
 * @param requestsSent     requests the workers sent (lost ones counted: their fate is unknown)
 * @param timedOut         a worker's timeout ended its share
 * @param stopped          a worker's share was stopped
 * @param workers          one report per worker
 * @param openLoop         the merged open loop, with {@code clientOverhead} (null for a closed loop)
 * @param warmupRecords    every worker's warmup records (excluded from every result)
 * @param measureStartNanos where the measured window starts, from the shared start (after a warmup)
 * @param clientOverhead   the workers' clients, field by field the worst of them (so one overloaded worker shows),
 *                         or null when none reported
 * @param preconnectNanos  every worker's connect times of the connections it opened before the shared start
 * @param sharedStartNanos the shared start instant on the coordinator's {@link System#nanoTime()}: the origin of
 *                         every offset here
 */
public record MergedRun(List<RequestRecord> records, List<ScheduledRecord> timeline, long startEpochMillis,
                        long endEpochMillis, long durationNanos, int requestsSent, boolean timedOut, boolean stopped,
                        List<WorkerReport> workers, OpenLoopResult openLoop, List<RequestRecord> warmupRecords,
                        long measureStartNanos, ClientOverhead clientOverhead, long[] preconnectNanos,
                        long sharedStartNanos) {

    public MergedRun {
        records = List.copyOf(records);
        warmupRecords = List.copyOf(warmupRecords);
        timeline = List.copyOf(timeline);
        workers = List.copyOf(workers);
        preconnectNanos = preconnectNanos == null ? new long[0] : preconnectNanos.clone();
    }

    @Override
    public long[] preconnectNanos() {
        return preconnectNanos.clone();
    }

    /** The run as the engine's result of {@code settings}, as a single machine's runner would have returned it. */
    public LoadResult result(LoadSettings settings) {
        if (openLoop != null) return openLoop;
        return new ClosedLoopResult(records, startEpochMillis, endEpochMillis, durationNanos, requestsSent, timedOut,
                stopped, warmupRecords, timeline, measureStartNanos, (ClosedLoopSettings) settings, clientOverhead,
                preconnectNanos, sharedStartNanos);
    }

    public int lost() {
        return workers.stream().mapToInt(WorkerReport::lost).sum();
    }
}

package io.llmperf4j.distributed;

import io.llmperf4j.engine.load.OpenLoopResult;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.model.RequestRecord;

import java.util.List;

/**
 * The workers' results as one run: what a single machine's runner would have returned.
 *
 * @param records          every record, each with its worker, in (estimated) completion order
 * @param timeline         the same with send offsets from the shared start
 * @param startEpochMillis the shared start instant (coordinator's wall clock)
 * @param endEpochMillis   the start plus the duration
 * @param durationNanos    shared start to the last worker's end, each worker's part on its own monotonic clock
 * @param requestsSent     requests the workers sent (lost ones counted: their fate is unknown)
 * @param timedOut         a worker's timeout ended its share
 * @param stopped          a worker's share was stopped
 * @param workers          one report per worker
 * @param openLoop         the merged open loop (null for a closed loop)
 */
public record MergedRun(List<RequestRecord> records, List<ScheduledRecord> timeline, long startEpochMillis,
                        long endEpochMillis, long durationNanos, int requestsSent, boolean timedOut, boolean stopped,
                        List<WorkerReport> workers, OpenLoopResult openLoop) {

    public MergedRun {
        records = List.copyOf(records);
        timeline = List.copyOf(timeline);
        workers = List.copyOf(workers);
    }

    public int lost() {
        return workers.stream().mapToInt(WorkerReport::lost).sum();
    }
}

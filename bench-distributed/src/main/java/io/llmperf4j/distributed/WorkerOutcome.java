package io.llmperf4j.distributed;

import io.llmperf4j.engine.load.FreshRequests;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.model.ClientOverhead;
import io.llmperf4j.model.RequestRecord;

import java.util.List;

/**
 * What one worker reports back after its share ran. Times are its own monotonic clock's.
 *
 * @param workerId          the worker
 * @param startLagNanos     its runner's clock start (as the runner reports it) minus the shared start instant, both
 *                          on its own clock: how late its clock started (its connections are opened before the
 *                          instant, as a single machine opens them before its clock); every offset here counts from
 *                          that start
 * @param durationNanos     its measured window, as the runner reports it
 * @param requestsSent      requests it sent
 * @param timedOut          its timeout ended the share
 * @param stopped           a stop ended the share
 * @param timeline          every record with its send offsets from the worker's start, in completion order
 * @param arrivalsNotSent   open loop: scheduled arrivals never sent
 * @param maxBacklog        open loop: the worker's largest backlog
 * @param scheduledRate     open loop: its schedule's rate over measured arrivals (NaN below 2)
 * @param achievedSendRate  open loop: its actual send rate (NaN below 2)
 * @param measuredArrivals  open loop: measured arrivals in its schedule
 * @param warmupRecords     its warmup records (excluded from every result)
 * @param measureStartNanos where its measured window starts, from its start
 * @param warmupArrivals    open loop: warmup arrivals in its schedule
 * @param clientOverhead    how busy its client was (its own process), or null
 * @param preconnectNanos   connect times of the connections it opened before its clock started (none in a
 *                          connection mode that does not preconnect)
 * @param prompts           fresh prompts: what its share's sequence found (sends that waited for a draw, repeats),
 *                          for the coordinator to tell once for all the workers; null without fresh prompts
 */
public record WorkerOutcome(String workerId, long startLagNanos, long durationNanos, int requestsSent,
                            boolean timedOut, boolean stopped, List<ScheduledRecord> timeline, int arrivalsNotSent,
                            int maxBacklog, double scheduledRate, double achievedSendRate, int measuredArrivals,
                            List<RequestRecord> warmupRecords, long measureStartNanos, int warmupArrivals,
                            ClientOverhead clientOverhead, long[] preconnectNanos, FreshRequests.Tally prompts) {

    public WorkerOutcome {
        preconnectNanos = preconnectNanos == null ? new long[0] : preconnectNanos.clone();
    }

    /** Without fresh prompts. */
    public WorkerOutcome(String workerId, long startLagNanos, long durationNanos, int requestsSent, boolean timedOut,
                         boolean stopped, List<ScheduledRecord> timeline, int arrivalsNotSent, int maxBacklog,
                         double scheduledRate, double achievedSendRate, int measuredArrivals,
                         List<RequestRecord> warmupRecords, long measureStartNanos, int warmupArrivals,
                         ClientOverhead clientOverhead, long[] preconnectNanos) {
        this(workerId, startLagNanos, durationNanos, requestsSent, timedOut, stopped, timeline, arrivalsNotSent,
                maxBacklog, scheduledRate, achievedSendRate, measuredArrivals, warmupRecords, measureStartNanos,
                warmupArrivals, clientOverhead, preconnectNanos, null);
    }

    /** This outcome with its fresh prompts' tally. */
    WorkerOutcome withPrompts(FreshRequests.Tally tally) {
        return new WorkerOutcome(workerId, startLagNanos, durationNanos, requestsSent, timedOut, stopped, timeline,
                arrivalsNotSent, maxBacklog, scheduledRate, achievedSendRate, measuredArrivals, warmupRecords,
                measureStartNanos, warmupArrivals, clientOverhead, preconnectNanos, tally);
    }

    @Override
    public long[] preconnectNanos() {
        return preconnectNanos.clone();
    }
}

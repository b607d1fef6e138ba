package io.llmperf4j.distributed;

import io.llmperf4j.model.ClientOverhead;

/**
 * One worker's part of a merged run, for the summary.
 *
 * @param workerId        its cluster address
 * @param share           its concurrency or rate, in words
 * @param assigned        requests (closed loop, or open loop with a request count) given to it, or 0 when the
 *                        open loop ran for a duration
 * @param recorded        records it contributed, lost ones included
 * @param succeeded       of which succeeded
 * @param lost            of which lost with it (sent, then it left or failed before their records reached the
 *                        coordinator)
 * @param notSent         of its assigned requests, those it never sent because it left or failed (0 when it
 *                        finished, or when it had no count)
 * @param clockOffset     its wall clock against the coordinator's
 * @param startLagNanos   how late its clock started after the shared instant, its connections opened (its own
 *                        clock), or -1 when it never reported
 * @param leftReason      why its unfinished requests were lost, with how many were lost and how many never sent,
 *                        or null when it finished its share
 * @param clientOverhead  how busy its client was, or null when it never reported
 */
public record WorkerReport(String workerId, String share, int assigned, int recorded, int succeeded, int lost,
                           int notSent,
                           ClockOffset clockOffset, long startLagNanos, String leftReason,
                           ClientOverhead clientOverhead) {
}

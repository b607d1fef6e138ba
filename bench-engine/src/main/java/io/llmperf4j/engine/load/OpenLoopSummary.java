package io.llmperf4j.engine.load;

/**
 * An open-loop run in figures (measured requests only). "From intended" latencies count from the schedule's
 * intended send time and include queueing behind the concurrency cap and pacer lag (the response time a user would
 * see); "from actual" count from the real send (service time, what closed-loop tools report). Their difference is
 * the coordinated omission a closed-loop tool would hide.
 *
 * @param offeredRequestsPerSecond      the configured rate R
 * @param scheduledRequestsPerSecond    the drawn schedule's rate (differs from R by sampling noise)
 * @param achievedSendRequestsPerSecond the rate at which requests were actually sent
 * @param completedRequestsPerSecond    successful requests per second of the measured window
 * @param arrivalsScheduled             measured arrivals in the schedule
 * @param requestsSent                  measured requests sent
 * @param requestsSucceeded             measured requests that succeeded
 * @param arrivalsNotSent               scheduled arrivals never sent (the run ended first)
 * @param maxBacklog                    the most arrivals due but not yet sent at once
 * @param sendLag                       actual minus intended send time
 */
public record OpenLoopSummary(
        double offeredRequestsPerSecond,
        double scheduledRequestsPerSecond,
        double achievedSendRequestsPerSecond,
        double completedRequestsPerSecond,
        int arrivalsScheduled,
        int requestsSent,
        int requestsSucceeded,
        int arrivalsNotSent,
        int maxBacklog,
        LatencyPercentiles sendLag,
        LatencyPercentiles ttftFromIntended,
        LatencyPercentiles ttftFromActual,
        LatencyPercentiles e2eFromIntended,
        LatencyPercentiles e2eFromActual) {
}

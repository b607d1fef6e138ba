package io.llmperf4j.model;

/**
 * How busy the measuring client itself was during a run, so a report can tell when the client, not the server, set
 * the numbers. Measured in the client's own process; shares are fractions (0.25 = 25 %), NaN where the JVM could not
 * tell.
 *
 * @param wallNanos             the monitored window
 * @param ioThreads             I/O event loops probed
 * @param availableProcessors   cores the JVM may use
 * @param lagSamples            event-loop lag probes that ran
 * @param lagP50Nanos           median delay of a probe task behind its due time
 * @param lagP99Nanos           99th percentile of that delay
 * @param lagMaxNanos           largest delay
 * @param ioBusyShareMean       CPU time of the I/O threads / (wall time × I/O threads)
 * @param ioBusyShareMax        the busiest I/O thread's CPU time / wall time
 * @param gcPauseNanos          time spent in garbage collections (the collectors' accumulated collection time)
 * @param gcCount               garbage collections
 * @param processCpuShare       the process's CPU time / (wall time × available processors)
 */
public record ClientOverhead(
        long wallNanos,
        int ioThreads,
        int availableProcessors,
        long lagSamples,
        long lagP50Nanos,
        long lagP99Nanos,
        long lagMaxNanos,
        double ioBusyShareMean,
        double ioBusyShareMax,
        long gcPauseNanos,
        long gcCount,
        double processCpuShare) {
}

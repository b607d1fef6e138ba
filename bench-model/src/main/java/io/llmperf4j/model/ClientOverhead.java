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
 * @param idleLagP99Nanos       the machine's own noise: the p99 event-loop lag of the same probes on the idle client
 *                              before the first run of this process, or -1 when not measured
 * @param ioRunnableShareMax    the busiest I/O thread's time on a CPU or waiting in the run queue for one / wall
 *                              time: how much it wanted to run, which CPU time understates on a crowded machine
 *                              (Linux's per-thread schedstat; NaN elsewhere)
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
        double processCpuShare,
        long idleLagP99Nanos,
        double ioRunnableShareMax) {

    /** Without an idle baseline ({@code idleLagP99Nanos} -1) nor run-queue times ({@code ioRunnableShareMax} NaN). */
    public ClientOverhead(long wallNanos, int ioThreads, int availableProcessors, long lagSamples, long lagP50Nanos,
                          long lagP99Nanos, long lagMaxNanos, double ioBusyShareMean, double ioBusyShareMax,
                          long gcPauseNanos, long gcCount, double processCpuShare) {
        this(wallNanos, ioThreads, availableProcessors, lagSamples, lagP50Nanos, lagP99Nanos, lagMaxNanos,
                ioBusyShareMean, ioBusyShareMax, gcPauseNanos, gcCount, processCpuShare, -1, Double.NaN);
    }

    /** Whether the idle baseline was measured. */
    public boolean hasIdleBaseline() {
        return idleLagP99Nanos >= 0;
    }
}

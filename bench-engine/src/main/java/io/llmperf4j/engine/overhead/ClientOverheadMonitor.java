package io.llmperf4j.engine.overhead;

import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.model.ClientOverhead;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Measures how busy the client itself is while a run goes on, from {@link #start} to {@link #stop}:
 * <ul>
 *   <li>event-loop lag: a probe task on each I/O event loop, scheduled {@value #PROBE_PERIOD_MILLIS} ms ahead after
 *       each run; how late it ran behind its due time goes into an HdrHistogram. A loop busy with reads delays it;</li>
 *   <li>I/O busy share: each event-loop thread's CPU time ({@link ThreadMXBean}) over the wall time;</li>
 *   <li>GC: collection count and time, summed over the JVM's collectors ({@link GarbageCollectorMXBean} deltas);</li>
 *   <li>process CPU: the process's CPU time over wall time and available processors.</li>
 * </ul>
 * The probes cost one tiny task per loop every {@value #PROBE_PERIOD_MILLIS} ms. With the NIO transport a timer
 * wakes up to 1 ms late by itself (the selector's millisecond timeout); epoll's timers are precise.
 */
public final class ClientOverheadMonitor implements AutoCloseable {

    /** How often each event loop is probed. */
    public static final long PROBE_PERIOD_MILLIS = 10;

    private static final long PROBE_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(PROBE_PERIOD_MILLIS);
    /** Lags above this are clamped (a loop stalled for a minute is reported as a minute). */
    private static final long HIGHEST_LAG_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final Recorder lag = new Recorder(HIGHEST_LAG_NANOS, 3);
    private final List<Probe> probes = new ArrayList<>();
    private final long startNanos;
    private final long startProcessCpuNanos;
    private final long startGcMillis;
    private final long startGcCount;
    private volatile boolean stopped;
    private ClientOverhead result;

    private ClientOverheadMonitor(EventExecutorGroup loops) {
        startNanos = System.nanoTime();
        startProcessCpuNanos = processCpuNanos();
        startGcMillis = gcMillis();
        startGcCount = gcCount();
        if (loops != null) {
            for (EventExecutor loop : loops) {
                Probe probe = new Probe(loop);
                probes.add(probe);
                probe.begin();
            }
        }
    }

    /** Starts watching {@code client}'s event loops (none when it has none to show) and the process. */
    public static ClientOverheadMonitor start(LlmClient client) {
        return new ClientOverheadMonitor(client.ioEventLoops());
    }

    /** Starts watching {@code loops} (null for none) and the process. */
    public static ClientOverheadMonitor start(EventExecutorGroup loops) {
        return new ClientOverheadMonitor(loops);
    }

    /** Stops the probes and returns the figures of the window; later calls return the same figures. */
    public synchronized ClientOverhead stop() {
        if (result != null) return result;
        stopped = true;
        long wallNanos = Math.max(1, System.nanoTime() - startNanos);
        Histogram lags = lag.getIntervalHistogram();
        double busySum = 0;
        double busyMax = Double.NaN;
        int measuredThreads = 0;
        for (Probe probe : probes) {
            probe.cancel();
            double share = probe.cpuNanosSinceStart() / (double) wallNanos;
            if (Double.isNaN(share)) continue;
            busySum += share;
            busyMax = Double.isNaN(busyMax) ? share : Math.max(busyMax, share);
            measuredThreads++;
        }
        long processCpu = processCpuNanos();
        int cores = Runtime.getRuntime().availableProcessors();
        double processShare = processCpu < 0 || startProcessCpuNanos < 0 ? Double.NaN
                : (processCpu - startProcessCpuNanos) / ((double) wallNanos * cores);
        long samples = lags.getTotalCount();
        result = new ClientOverhead(wallNanos, probes.size(), cores, samples,
                samples == 0 ? 0 : lags.getValueAtPercentile(50), samples == 0 ? 0 : lags.getValueAtPercentile(99),
                samples == 0 ? 0 : lags.getMaxValue(),
                measuredThreads == 0 ? Double.NaN : busySum / measuredThreads, busyMax,
                TimeUnit.MILLISECONDS.toNanos(Math.max(0, gcMillis() - startGcMillis)),
                Math.max(0, gcCount() - startGcCount), processShare);
        return result;
    }

    @Override
    public void close() {
        stop();
    }

    private static long processCpuNanos() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) return sun.getProcessCpuTime();
        return -1;
    }

    private static long gcMillis() {
        long sum = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, gc.getCollectionTime());
        }
        return sum;
    }

    private static long gcCount() {
        long sum = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, gc.getCollectionCount());
        }
        return sum;
    }

    /** The probe of one event loop: learns its thread on the first run, then re-arms itself until stopped. */
    private final class Probe implements Runnable {
        private final EventExecutor loop;
        private volatile long threadId = -1;
        private volatile long startCpuNanos = -1;
        private volatile io.netty.util.concurrent.Future<?> next;
        private long dueNanos;

        Probe(EventExecutor loop) {
            this.loop = loop;
        }

        void begin() {
            try {
                loop.execute(() -> {
                    threadId = Thread.currentThread().getId();
                    startCpuNanos = threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : -1;
                    arm();
                });
            } catch (RejectedExecutionException shuttingDown) {
                // nothing to watch
            }
        }

        private void arm() {
            if (stopped) return;
            dueNanos = System.nanoTime() + PROBE_PERIOD_NANOS;
            try {
                next = loop.schedule(this, PROBE_PERIOD_NANOS, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException shuttingDown) {
                // the client is closing: the run is over
            }
        }

        @Override
        public void run() {
            if (stopped) return;
            lag.recordValue(Math.min(HIGHEST_LAG_NANOS, Math.max(0, System.nanoTime() - dueNanos)));
            arm();
        }

        void cancel() {
            io.netty.util.concurrent.Future<?> f = next;
            if (f != null) f.cancel(false);
        }

        /** CPU time of the loop's thread since the probe first ran there, or NaN when unknown. */
        double cpuNanosSinceStart() {
            long id = threadId;
            long start = startCpuNanos;
            if (id < 0 || start < 0) return Double.NaN;
            long now = threads.getThreadCpuTime(id);
            return now < 0 ? Double.NaN : now - start;
        }
    }
}

package io.llmperf4j.engine.overhead;

import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.model.ClientOverhead;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Measures how busy the client itself is while a run goes on, from {@link #start} to {@link #stop}:
 * <ul>
 *   <li>event-loop lag: a probe task on each I/O event loop, scheduled {@value #PROBE_PERIOD_MILLIS} ms ahead after
 *       each run; how late it ran behind its due time goes into an HdrHistogram. A loop busy with reads delays it;</li>
 *   <li>I/O busy share: each event-loop thread's CPU time ({@link ThreadMXBean}) over the wall time; and, on Linux,
 *       its runnable share: CPU time plus the time it waited in the run queue for a CPU (its {@code schedstat}),
 *       which tells a busy loop from an idle one on a machine so crowded that CPU time alone stays low;</li>
 *   <li>GC: collection count and time, summed over the JVM's collectors ({@link GarbageCollectorMXBean} deltas);</li>
 *   <li>process CPU: the process's CPU time over wall time and available processors.</li>
 * </ul>
 * The probes cost one tiny task per loop every {@value #PROBE_PERIOD_MILLIS} ms. With the NIO transport a timer
 * wakes up to 1 ms late by itself (the selector's millisecond timeout); epoll's timers are precise.
 *
 * <p>Idle baseline. A busy machine delays even an idle event loop (a 2-core machine shared with other work lags by
 * milliseconds), so before the first run of this process the same probes watch the idle client's loops for
 * {@value #IDLE_BASELINE_MILLIS} ms; their p99 lag is the machine's own noise, kept in every result
 * ({@link ClientOverhead#idleLagP99Nanos()}) for the client-bottleneck rule to compare against. It is measured once
 * per process: a sweep's levels do not each wait for it.
 *
 * <p>Measured window. A run with a warmup stops its monitor with the measured window's start
 * ({@link #stop(long)}): the lag figures, which {@code CLIENT_BOTTLENECK} judges, count only the probes that ran from
 * then on, so a warmup that lagged (the JIT compiling, connections opening) does not speak for the measured requests.
 * The lag samples keep their times for that: the first {@value #TIMED_SAMPLES} of the run (about 20 minutes with two
 * loops), any later ones counted whatever their time. CPU shares and GC still cover the whole watch, warmup included.
 */
public final class ClientOverheadMonitor implements AutoCloseable {

    /** How often each event loop is probed. */
    public static final long PROBE_PERIOD_MILLIS = 10;

    private static final long PROBE_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(PROBE_PERIOD_MILLIS);
    /** How long the idle client is probed for the baseline, once per process. */
    public static final long IDLE_BASELINE_MILLIS = 200;
    /** Lags above this are clamped (a loop stalled for a minute is reported as a minute). */
    private static final long HIGHEST_LAG_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** Lag samples kept with their times, so a window's start can be applied at the end (4 MB at most). */
    static final int TIMED_SAMPLES = 1 << 18;

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    /** Lag samples past the first {@value #TIMED_SAMPLES}: counted in any window. */
    private final Recorder lag = new Recorder(HIGHEST_LAG_NANOS, 3);
    // guarded by itself: each probe's time and lag, in arrival order, up to TIMED_SAMPLES
    private final long[][] timedLag = {new long[1024], new long[1024]};
    private int timedCount;
    private final List<Probe> probes = new ArrayList<>();
    private final long startNanos;
    private final long startProcessCpuNanos;
    private final long startGcMillis;
    private final long startGcCount;
    /** The p99 lag of idle loops, measured by the first monitor of the process with loops; -1 until then. */
    private static long idleLagP99Nanos = -1;
    private static final Object IDLE_BASELINE_LOCK = new Object();

    private final long idleBaselineNanos;
    private volatile boolean stopped;
    private ClientOverhead result;

    private ClientOverheadMonitor(EventExecutorGroup loops, long idleBaselineNanos) {
        this.idleBaselineNanos = idleBaselineNanos;
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

    /**
     * Starts watching {@code client}'s event loops (none when it has none to show) and the process; the first call of
     * the process with loops first measures the idle baseline on them ({@value #IDLE_BASELINE_MILLIS} ms).
     */
    public static ClientOverheadMonitor start(LlmClient client) {
        return start(client.ioEventLoops());
    }

    /** Starts watching {@code loops} (null for none) and the process, as {@link #start(LlmClient)}. */
    public static ClientOverheadMonitor start(EventExecutorGroup loops) {
        return new ClientOverheadMonitor(loops, idleBaseline(loops));
    }

    /**
     * Measures the idle baseline on {@code client}'s loops now, unless this process already has one: for callers whose
     * run must start at a fixed instant (a load worker), so the first {@link #start} does not spend those
     * {@value #IDLE_BASELINE_MILLIS} ms after it.
     */
    public static void measureIdleBaseline(LlmClient client) {
        idleBaseline(client.ioEventLoops());
    }

    /** The idle loops' p99 lag: measured on {@code loops} by the first caller with loops, then kept. */
    static long idleBaseline(EventExecutorGroup loops) {
        synchronized (IDLE_BASELINE_LOCK) {
            if (idleLagP99Nanos >= 0 || loops == null) return idleLagP99Nanos;
            ClientOverheadMonitor idle = new ClientOverheadMonitor(loops, -1);
            try {
                Thread.sleep(IDLE_BASELINE_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                idle.stop();
                return -1;
            }
            ClientOverhead o = idle.stop();
            if (o.lagSamples() > 0) idleLagP99Nanos = o.lagP99Nanos();
            return idleLagP99Nanos;
        }
    }

    /** Stops the probes and returns the figures of the whole watch; later calls return the same figures. */
    public ClientOverhead stop() {
        return stop(startNanos); // every probe ran after the start
    }

    /**
     * Stops the probes and returns the figures, the lag counted over the probes that ran from
     * {@code measuredFromNanos} ({@link System#nanoTime()}: the measured window's first send) on; later calls return
     * the same figures.
     */
    public synchronized ClientOverhead stop(long measuredFromNanos) {
        if (result != null) return result;
        stopped = true;
        long wallNanos = Math.max(1, System.nanoTime() - startNanos);
        Histogram lags = lag.getIntervalHistogram();
        synchronized (timedLag) {
            for (int i = 0; i < timedCount; i++) {
                if (timedLag[0][i] - measuredFromNanos >= 0) lags.recordValue(timedLag[1][i]);
            }
        }
        double busySum = 0;
        double busyMax = Double.NaN;
        double runnableMax = Double.NaN;
        int measuredThreads = 0;
        for (Probe probe : probes) {
            probe.cancel();
            double runnable = probe.runnableNanosSinceStart() / (double) wallNanos;
            if (!Double.isNaN(runnable)) runnableMax = Double.isNaN(runnableMax) ? runnable : Math.max(runnableMax, runnable);
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
                Math.max(0, gcCount() - startGcCount), processShare, idleBaselineNanos, runnableMax);
        return result;
    }

    @Override
    public void close() {
        stop();
    }

    /** One probe's lag, kept with its time while there is room. */
    private void record(long atNanos, long lagNanos) {
        synchronized (timedLag) {
            if (timedCount < TIMED_SAMPLES) {
                if (timedCount == timedLag[0].length) {
                    timedLag[0] = Arrays.copyOf(timedLag[0], timedCount * 2);
                    timedLag[1] = Arrays.copyOf(timedLag[1], timedCount * 2);
                }
                timedLag[0][timedCount] = atNanos;
                timedLag[1][timedCount++] = lagNanos;
                return;
            }
        }
        lag.recordValue(lagNanos);
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
        /** The loop thread's {@code /proc/<pid>/task/<tid>/schedstat}, or null off Linux. */
        private volatile Path schedstat;
        private volatile long startRunnableNanos = -1;
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
                    schedstat = ownSchedstat();
                    startRunnableNanos = runnableNanos(schedstat);
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
            long now = System.nanoTime();
            record(now, Math.min(HIGHEST_LAG_NANOS, Math.max(0, now - dueNanos)));
            arm();
        }

        void cancel() {
            io.netty.util.concurrent.Future<?> f = next;
            if (f != null) f.cancel(false);
        }

        /** CPU plus run-queue time of the loop's thread since the probe first ran there, or NaN when unknown. */
        double runnableNanosSinceStart() {
            long start = startRunnableNanos;
            long now = runnableNanos(schedstat);
            return start < 0 || now < 0 ? Double.NaN : now - start;
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

    /** The calling thread's schedstat file, or null where there is none (not Linux). */
    private static Path ownSchedstat() {
        try {
            Path own = Path.of("/proc/thread-self").toRealPath().resolve("schedstat");
            return Files.isReadable(own) ? own : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** A thread's time on a CPU plus its time waiting in the run queue, from its schedstat; -1 when unknown. */
    private static long runnableNanos(Path schedstat) {
        if (schedstat == null) return -1;
        try {
            String[] fields = Files.readString(schedstat).trim().split("\\s+");
            return Long.parseLong(fields[0]) + Long.parseLong(fields[1]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}

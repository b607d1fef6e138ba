package io.llmperf4j.engine.client.impl;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * When a write that a thread made at once ended, on the {@link System#nanoTime()} clock, without the time the thread
 * then spent off the CPU. On loopback a write wakes the reader inside the system call, and the scheduler often runs
 * the woken server on the writer's own core, taking the writer off the CPU as the call returns: a clock read after
 * the call then comes after the server has read the request and handled it (0.3-0.8 ms later at 1 stream against
 * the Node reference server, seen with {@code perf} as the I/O thread switched out, runnable, right after its
 * {@code sendto} returned, and back once the server slept). The kernel had the bytes before that. So the end is the
 * wall clock at the write's start plus the thread's CPU time since, which time off the CPU does not advance (the
 * call's own kernel work, loopback delivery included, is the thread's CPU time). A thread taken off the CPU before the
 * kernel had the last byte (microseconds of CPU, so rare) would read early by that wait. Without a thread CPU clock
 * the end is the wall clock after the write, as before.
 */
final class WriteEndClock {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final boolean THREAD_CPU_CLOCK = threadCpuClock();

    private WriteEndClock() {
    }

    /** The calling thread's CPU time now, in ns; -1 without a thread CPU clock. Read before the write's wall start. */
    static long cpuNow() {
        return THREAD_CPU_CLOCK ? THREADS.getCurrentThreadCpuTime() : -1;
    }

    /**
     * The end of a write that began at {@code wallAtStart} ({@link System#nanoTime()}, read just after
     * {@code cpuAtStart} = {@link #cpuNow()}) and has just returned on this thread: the start plus the CPU time
     * since, within [start, now].
     */
    static long ended(long wallAtStart, long cpuAtStart) {
        long cpu = cpuAtStart < 0 ? -1 : cpuNow();
        long now = System.nanoTime();
        if (cpu < 0) return now;
        return Math.max(wallAtStart, Math.min(now, wallAtStart + (cpu - cpuAtStart)));
    }

    private static boolean threadCpuClock() {
        try {
            return THREADS.isCurrentThreadCpuTimeSupported() && THREADS.isThreadCpuTimeEnabled();
        } catch (UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }
}

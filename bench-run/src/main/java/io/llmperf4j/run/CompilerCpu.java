package io.llmperf4j.run;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * CPU time the JIT compiler threads have used so far, in nanoseconds. On Linux it is read from the threads' own
 * scheduler counters ({@code /proc/self/task/ID/schedstat}), which grow while a compilation runs; elsewhere it is the
 * JVM's total compilation time, which grows only when a compilation ends (a long C2 compilation then looks like an
 * idle compiler until it is done).
 */
final class CompilerCpu {
    private static final Path TASKS = Path.of("/proc/self/task");

    private CompilerCpu() {
    }

    static long nanos() {
        long fromThreads = fromCompilerThreads();
        if (fromThreads >= 0) return fromThreads;
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) return 0;
        return TimeUnit.MILLISECONDS.toNanos(jit.getTotalCompilationTime());
    }

    /** The sum over the threads named "C1 CompilerThre..." and "C2 CompilerThre...", or -1 when unreadable. */
    private static long fromCompilerThreads() {
        if (!Files.isDirectory(TASKS)) return -1;
        long sum = 0;
        boolean found = false;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                String name;
                try {
                    name = Files.readString(task.resolve("comm")).strip();
                    if (!name.startsWith("C1 Compiler") && !name.startsWith("C2 Compiler")) continue;
                    String schedstat = Files.readString(task.resolve("schedstat"));
                    sum += Long.parseLong(schedstat.substring(0, schedstat.indexOf(' ')));
                    found = true;
                } catch (IOException | RuntimeException e) {
                    // a compiler thread that ended between the listing and the read: it adds nothing more
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return found ? sum : -1;
    }
}

package io.llmperf4j.report.output;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** {@code <base>_open_loop.json}: an open loop's schedule and what became of it, latencies in ms. */
public final class OpenLoopFile {
    public static final String SCHEMA = "llmperf4j.open_loop/1";

    /** The file's content; null numbers are undefined. */
    public record Document(String schema, String model, double offeredRequestsPerS, String arrival, Double burstiness,
                           long seed, Integer maxConcurrency, String warmup, Double scheduledRequestsPerS,
                           Double achievedSendRequestsPerS, Double completedRequestsPerS, int arrivalsScheduled,
                           int requestsSent, int requestsSucceeded, int arrivalsNotSent, int maxBacklog,
                           boolean timedOut, boolean stopped, Latency sendLagMs, Latency ttftFromIntendedMs,
                           Latency ttftFromActualMs, Latency e2eFromIntendedMs, Latency e2eFromActualMs) {
    }

    /** One latency distribution in ms; all null when nothing was measured. */
    public record Latency(long count, Double mean, Double p50, Double p90, Double p99, Double p999, Double max) {
    }

    private OpenLoopFile() {
    }

    /** Writes {@code doc} into {@code dir} as {@code <base>_open_loop.json}; returns the file. */
    public static Path write(Path dir, String base, Document doc) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(base + "_open_loop.json");
        OutputFormat.writeJson(doc, file);
        return file;
    }
}

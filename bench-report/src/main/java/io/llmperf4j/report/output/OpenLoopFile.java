package io.llmperf4j.report.output;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** {@code <base>_open_loop.json}: an open loop's schedule and what became of it, latencies in ms. */
public final class OpenLoopFile {
    public static final String SCHEMA = "llmperf4j.open_loop/1";
    /** The file's name ends with this: {@code <base>_open_loop.json}. */
    public static final String SUFFIX = "_open_loop.json";

    /**
     * The file's content; null numbers are undefined.
     *
     * @param offeredRequestsPerS the configured rate; a trace replay's is the trace's mean rate, and for a trace whose
     *                            requests share one timestamp ({@code trace.span_s} 0) only a stand-in, not a rate
     * @param arrival             "constant", "poisson", "gamma" or "trace" (sent on a replayed trace's timestamps)
     * @param seed                the schedule's seed; null for a trace replay, whose schedule is the trace's
     * @param trace               the replayed trace, or null when the arrivals were drawn
     */
    public record Document(String schema, String model, double offeredRequestsPerS, String arrival, Double burstiness,
                           Long seed, TraceJson trace, Integer maxConcurrency, String warmup, Double scheduledRequestsPerS,
                           Double achievedSendRequestsPerS, Double completedRequestsPerS, int arrivalsScheduled,
                           int requestsSent, int requestsSucceeded, int arrivalsNotSent, int maxBacklog,
                           boolean timedOut, boolean stopped, Latency sendLagMs, Latency ttftFromIntendedMs,
                           Latency ttftFromActualMs, Latency e2eFromIntendedMs, Latency e2eFromActualMs) {
    }

    /**
     * A replayed trace ({@code --trace}).
     *
     * @param source    FORMAT:FILE as given
     * @param requests  the requests replayed
     * @param spanS     first to last replayed timestamp in s, after the speedup
     * @param speedup   the trace's timestamps were divided by this ({@code --trace-speedup})
     * @param durationS only the requests within this stretch of the sped-up trace ({@code --trace-duration}), from
     *                  its start or {@code startS}; null for the whole trace
     * @param sessions  the trace's multi-turn sessions, whose starts are arrivals (its requests without a session
     *                  are arrivals of their own, not sessions, as trace-stats counts them); null for a trace without
     *                  sessions, or a file written before this key
     * @param requestsNotSent the trace's requests never sent (arrivals and later turns alike: the run's time limit
     *                  or a stop came first, or a failed turn ended its session); null in a file written before
     * @param singleRequests with {@code sessions}: the trace's requests without a session, each an arrival of its
     *                  own (the rate then counts arrivals, not sessions); null without sessions or in a file written
     *                  before this key
     * @param sessionSpanS with {@code sessions}: first to last arrival (session start or single request) in s, after
     *                  the speedup, the span the console's "starting over" names; null without sessions or in a file
     *                  written before this key
     * @param startS    the replay began this far into the sped-up trace ({@code --trace-start}; its first request
     *                  kept was sent at 0); null from the trace's start, or in a file written before this key
     */
    public record TraceJson(String source, int requests, double spanS, double speedup, Double durationS,
                            Integer sessions, Integer requestsNotSent, Integer singleRequests, Double sessionSpanS,
                            Double startS) {
        /** A trace as files written before {@code session_span_s} had it. */
        public TraceJson(String source, int requests, double spanS, double speedup, Double durationS,
                         Integer sessions, Integer requestsNotSent, Integer singleRequests) {
            this(source, requests, spanS, speedup, durationS, sessions, requestsNotSent, singleRequests, null, null);
        }

        /** A trace as files written before {@code start_s} had it. */
        public TraceJson(String source, int requests, double spanS, double speedup, Double durationS,
                         Integer sessions, Integer requestsNotSent, Integer singleRequests, Double sessionSpanS) {
            this(source, requests, spanS, speedup, durationS, sessions, requestsNotSent, singleRequests, sessionSpanS,
                    null);
        }
    }

    /** One latency distribution in ms; all null when nothing was measured. */
    public record Latency(long count, Double mean, Double p50, Double p90, Double p99, Double p999, Double max) {
    }

    private OpenLoopFile() {
    }

    /** The file of {@code base} in {@code dir}, whether or not it exists. */
    public static Path fileFor(Path dir, String base) {
        return dir.resolve(base + SUFFIX);
    }

    /** Reads a file written by {@link #write}; the message names the file and what is wrong with it. */
    public static Document read(Path file) throws IOException {
        return OutputFormat.readJson(file, Document.class);
    }

    /** Writes {@code doc} into {@code dir} as {@code <base>_open_loop.json}; returns the file. */
    public static Path write(Path dir, String base, Document doc) throws IOException {
        Files.createDirectories(dir);
        Path file = fileFor(dir, base);
        OutputFormat.writeJson(doc, file);
        return file;
    }
}

package io.llmperf4j.model;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The server going away during a run ({@link FailureCause#SERVER_UNAVAILABLE}), as its requests show it: when the
 * first refused connection was sent, how many successes had ended by then, and how many failed requests the server
 * had begun answering by then (their response headers, or their first content, had come). With no success before it,
 * the server was killed during the first wave: "before any request succeeded but after it had begun answering 4
 * requests". The one reading: the summary's REQUESTS_FAILED warning, the page's error table and the sweep's verdict
 * all word it from here, and {@link #causes} is the one rule that tells a refused connection of a server that had
 * answered (gone away) from one of a server that never did (the configuration).
 *
 * @param firstRefusedEpochMicros when the first refused request was sent (epoch microseconds)
 * @param successesBefore         successes that had ended when it was sent
 * @param answeredBefore          failed requests the server had begun answering when it was sent
 */
public record ServerGone(long firstRefusedEpochMicros, long successesBefore, long answeredBefore) {

    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    /**
     * One request as this reading needs it.
     *
     * @param kind                 the failure's kind, null for a success
     * @param code                 the failure's code (HTTP status or stream error's), null or -1 for none
     * @param ttftNanos            send to the first content, negative when none came
     * @param responseHeadersNanos send to the response's status line and headers, negative when none came or they
     *                             were not measured ({@link RequestPhases#responseHeadersNanos()})
     * @param firstReasoningNanos  send to the first reasoning text, negative when none came
     */
    public record Request(boolean succeeded, FailureKind kind, Integer code, long startEpochMicros, long e2eNanos,
                          long ttftNanos, long responseHeadersNanos, long firstReasoningNanos) {

        /** {@code record} as this reading needs it. */
        public static Request of(RequestRecord record) {
            boolean ok = record.succeeded();
            return new Request(ok, ok ? null : record.failure().kind(), ok ? null : record.failure().code(),
                    record.startEpochMicros(), record.e2eNanos(), record.ttftNanos(),
                    record.phases().responseHeadersNanos(), record.firstReasoningNanos());
        }

        /** The server had streamed tokens, content or reasoning: a failure after them came while it was serving. */
        public boolean streamedTokens() {
            return ttftNanos >= 0 || firstReasoningNanos >= 0;
        }

        /**
         * When this request showed the server was serving (epoch microseconds): its response headers came (an answer
         * had begun, whatever followed), else its first content, else a success's end; {@link
         * FailureCause#NEVER_SERVED} for a failure that had none of them.
         */
        public long answeredAtEpochMicros() {
            if (responseHeadersNanos >= 0) return FailureCause.endEpochMicros(startEpochMicros, responseHeadersNanos);
            if (ttftNanos >= 0) return FailureCause.endEpochMicros(startEpochMicros, ttftNanos);
            return succeeded ? FailureCause.endEpochMicros(startEpochMicros, e2eNanos) : FailureCause.NEVER_SERVED;
        }
    }

    /**
     * A sweep's earlier levels' answer, which a level's own records cannot show: the server had answered an earlier
     * level at {@code servedSinceEpochMicros}, so this level's connections refused before any answer of its own are
     * the server gone, not the configuration. Built once for the level (when the sweep's verdict reads it gone
     * before it) and read by its REQUESTS_FAILED warning, its summary's errors and its page's error table.
     *
     * @param servedSinceEpochMicros when an earlier level was first answered (epoch microseconds)
     * @param words                  the sweep verdict's words, "the server was gone since concurrency 2"
     */
    public record Earlier(long servedSinceEpochMicros, String words) {
        public Earlier {
            Objects.requireNonNull(words, "words");
        }
    }

    /** No request had succeeded when the first refused one was sent: the server was killed during the first wave. */
    public boolean beforeAnySuccess() {
        return successesBefore == 0;
    }

    /** When the first refused request was sent, "14:03:07" (UTC). */
    public String utcTime() {
        return CLOCK.format(Instant.EPOCH.plus(firstRefusedEpochMicros, ChronoUnit.MICROS));
    }

    /**
     * "before any request succeeded but after it had begun answering 4 requests", or "after 12 successes": the
     * words every reading of the server going away shares.
     */
    public String when() {
        if (!beforeAnySuccess()) return "after " + successesBefore + " success" + (successesBefore == 1 ? "" : "es");
        return "before any request succeeded but after it had begun answering " + answeredBefore
                + (answeredBefore == 1 ? " request" : " requests");
    }

    /** A run's {@code records} as this reading needs them, in order. */
    public static List<Request> requests(List<RequestRecord> records) {
        List<Request> out = new ArrayList<>(records.size());
        for (RequestRecord r : records) out.add(Request.of(r));
        return out;
    }

    /** The reading of a run's records; empty when none of them is {@link FailureCause#SERVER_UNAVAILABLE}. */
    public static Optional<ServerGone> of(List<RequestRecord> records) {
        return read(requests(records));
    }

    /**
     * When the server first showed it was serving in {@code requests} ({@link Request#answeredAtEpochMicros()}),
     * {@link FailureCause#NEVER_SERVED} if it never did.
     */
    public static long servedSince(List<Request> requests) {
        long served = FailureCause.NEVER_SERVED;
        for (Request r : requests) served = Math.min(served, r.answeredAtEpochMicros());
        return served;
    }

    /**
     * The cause of each of a run's {@code requests}, in order, null for a success: {@link FailureCause#of(FailureKind,
     * Integer, boolean, long, long)} with the moment the server first answered ({@link #servedSince}) and whether it
     * had streamed tokens. Every reading of a run's failures (records, or requests read back from its files) comes
     * here.
     */
    public static List<FailureCause> causes(List<Request> requests) {
        return causes(requests, null);
    }

    /**
     * As {@link #causes(List)} for a sweep's level, with what the server had answered in the levels before it
     * ({@code earlier}, null for a run read alone): a connection refused after that answer is the server going away.
     */
    public static List<FailureCause> causes(List<Request> requests, Earlier earlier) {
        long served = servedSince(requests);
        if (earlier != null) served = Math.min(served, earlier.servedSinceEpochMicros());
        List<FailureCause> out = new ArrayList<>(requests.size());
        for (Request r : requests) {
            out.add(r.succeeded() ? null : FailureCause.of(r.kind(), r.code(), r.streamedTokens(),
                    r.startEpochMicros(), served));
        }
        return out;
    }

    /**
     * The reading of a run's {@code requests}: the refused ones are those {@link #causes} calls the server going
     * away, sent after the server first answered; empty when there is none.
     */
    public static Optional<ServerGone> read(List<Request> requests) {
        List<FailureCause> causes = causes(requests);
        long first = Long.MAX_VALUE;
        for (int i = 0; i < requests.size(); i++) {
            if (causes.get(i) == FailureCause.SERVER_UNAVAILABLE) {
                first = Math.min(first, requests.get(i).startEpochMicros());
            }
        }
        if (first == Long.MAX_VALUE) return Optional.empty();
        long successes = 0;
        long answered = 0;
        for (Request r : requests) {
            if (r.succeeded()) {
                if (FailureCause.endEpochMicros(r.startEpochMicros(), r.e2eNanos()) <= first) successes++;
            } else if (r.answeredAtEpochMicros() <= first) {
                answered++;
            }
        }
        return Optional.of(new ServerGone(first, successes, answered));
    }
}

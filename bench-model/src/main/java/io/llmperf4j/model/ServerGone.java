package io.llmperf4j.model;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The server going away during a run ({@link FailureCause#SERVER_UNAVAILABLE}), as its requests show it: when the
 * first refused connection was sent, how many successes had ended by then, and how many failed requests the server
 * had begun answering by then (their first content had come). With no success before it, the server was killed
 * during the first wave: "before any request succeeded but after it had begun answering 4 requests". The one reading:
 * the summary's REQUESTS_FAILED warning, the page's error table and the sweep's verdict all word it from here.
 *
 * @param firstRefusedEpochMicros when the first refused request was sent (epoch microseconds)
 * @param successesBefore         successes that had ended when it was sent
 * @param answeredBefore          failed requests whose first content had come when it was sent
 */
public record ServerGone(long firstRefusedEpochMicros, long successesBefore, long answeredBefore) {

    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    /**
     * One request as this reading needs it.
     *
     * @param kind      the failure's kind, null for a success
     * @param code      the failure's code (HTTP status or stream error's), null or -1 for none
     * @param ttftNanos send to the first content, negative when none came
     */
    public record Request(boolean succeeded, FailureKind kind, Integer code, long startEpochMicros, long e2eNanos,
                          long ttftNanos) {
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

    /** The reading of a run's records; empty when none of them is {@link FailureCause#SERVER_UNAVAILABLE}. */
    public static Optional<ServerGone> of(List<RequestRecord> records) {
        List<Request> requests = new ArrayList<>(records.size());
        for (RequestRecord r : records) {
            requests.add(new Request(r.succeeded(), r.succeeded() ? null : r.failure().kind(),
                    r.succeeded() ? null : r.failure().code(), r.startEpochMicros(), r.e2eNanos(), r.ttftNanos()));
        }
        return read(requests);
    }

    /**
     * The reading of a run's {@code requests}: the refused ones are those {@link FailureCause#of(FailureKind,
     * Integer, long, long)} calls the server going away, sent after the server first showed it was there
     * ({@link FailureCause#servedAt}); empty when there is none.
     */
    public static Optional<ServerGone> read(List<Request> requests) {
        long served = FailureCause.NEVER_SERVED;
        for (Request r : requests) {
            served = Math.min(served, FailureCause.servedAt(r.succeeded(), r.startEpochMicros(), r.e2eNanos(),
                    r.ttftNanos()));
        }
        long first = Long.MAX_VALUE;
        for (Request r : requests) {
            if (!r.succeeded() && FailureCause.of(r.kind(), r.code(), r.startEpochMicros(), served)
                    == FailureCause.SERVER_UNAVAILABLE) {
                first = Math.min(first, r.startEpochMicros());
            }
        }
        if (first == Long.MAX_VALUE) return Optional.empty();
        long successes = 0;
        long answered = 0;
        for (Request r : requests) {
            if (r.succeeded()) {
                if (FailureCause.endEpochMicros(r.startEpochMicros(), r.e2eNanos()) <= first) successes++;
            } else if (r.ttftNanos() >= 0 && FailureCause.endEpochMicros(r.startEpochMicros(), r.ttftNanos()) <= first) {
                answered++;
            }
        }
        return Optional.of(new ServerGone(first, successes, answered));
    }
}

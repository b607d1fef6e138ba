package io.llmperf4j.engine.load;

import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RetryAfter;

import java.util.Locale;

/**
 * Failures counted by what they were, an HTTP status or a kind: "18x 429 [Retry-After: 3-7 s; not retried], 1x
 * request timeout". The words are {@link RetryAfter.Tally}'s, the console's failure line's, so the keep-up line, the
 * saturation point, BEHIND_SCHEDULE and a sweep level's causes say a 429's Retry-After, and that it was not retried,
 * as "3x 429 Rate limit exceeded [Retry-After: 3-7 s; not retried]" does.
 */
final class FailedAs {

    /** A distributed run's arrival that its load worker, lost, never sent ({@link KeepUp#notSentByLostWorker}). */
    static final String NOT_SENT_LOST_WORKER = "not sent, its load worker lost";

    private final RetryAfter.Tally tally = new RetryAfter.Tally();
    private boolean asked;

    /** Counts one failure; null counts as "unknown". */
    FailedAs add(Failure f) {
        int status = f != null && (f.kind() == FailureKind.HTTP_STATUS || streamed429(f)) ? f.code() : 0;
        tally.add(what(f), status, f == null ? null : f.message());
        asked |= status == 429 || f != null && RetryAfter.valueIn(f.message()) != null;
        return this;
    }

    /**
     * Whether a failure counted asked the client to come back (a 429, a Retry-After): then the words say it was not
     * retried, which a reader of those failures must not have to guess.
     */
    boolean askedToComeBack() {
        return asked;
    }

    /** "18x 429 [Retry-After: 3-7 s; not retried], 1x request timeout", most frequent first; "" when none. */
    @Override
    public String toString() {
        return tally.toString();
    }

    /**
     * How a line names a failure: its HTTP status, "429 error event", "not sent, its load worker lost", or its kind in
     * words.
     */
    private static String what(Failure f) {
        if (f == null) return "unknown";
        if (NOT_SENT_LOST_WORKER.equals(f.message())) return NOT_SENT_LOST_WORKER;
        if (streamed429(f)) return "429 error event";
        return f.kind() == FailureKind.HTTP_STATUS ? String.valueOf(f.code())
                : f.kind().name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    /** A 429 sent as an error event under a 200: it asks the client to come back as an HTTP 429 does. */
    private static boolean streamed429(Failure f) {
        return f.kind() == FailureKind.ERROR_IN_STREAM && f.code() == 429;
    }
}

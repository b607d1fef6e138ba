package io.llmperf4j.report.metrics;

import io.llmperf4j.model.ErrorBodies;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RetryAfter;
import io.llmperf4j.report.summary.Redaction;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * For the failure kinds that carry the server's words (HTTP_STATUS, ERROR_IN_STREAM), the most common status and
 * message, e.g. {@code "2x 429 Rate limit exceeded"}: REQUESTS_FAILED names it, as a run where every request failed
 * prints it. The message is the server's as {@link ErrorBodies#oneLine} reads an error body (the console's reading),
 * short, without a final full stop (it stands in a list); key-shaped text redacted. The status is said once
 * ({@link Failure#withCode}). A response's Retry-After is said after it as the range seen, with "not retried"
 * (also for a 429 without one): {@code "3x 429 Rate limit exceeded [Retry-After: 7 s; not retried]"}.
 */
final class CommonFailures {
    /** How much of a message the warning quotes. */
    static final int MESSAGE_CHARS = 80;

    private CommonFailures() {
    }

    /** Per kind of the server's words, its most common status and message among the failed records. */
    static Map<FailureKind, String> of(List<RequestRecord> records) {
        Map<FailureKind, RetryAfter.Tally> counts = new EnumMap<>(FailureKind.class);
        for (RequestRecord record : records) {
            if (record.succeeded() || !serversWords(record.failure().kind())) continue;
            Failure failure = record.failure();
            // the Retry-After note is said apart, as its range: messages that differ only in it are one
            String message = RetryAfter.without(failure.message());
            // the client's own words (a redirect's hint, the base to set, ends a long URL): whole
            String words = failure.clientWorded() ? Redaction.secrets(message) : words(message);
            counts.computeIfAbsent(failure.kind(), k -> new RetryAfter.Tally())
                    .add(failure.withCode(words), failure.code(), failure.message());
        }
        return mostCommon(counts);
    }

    /** The same from per-request metrics, which keep the status but not the message. */
    static Map<FailureKind, String> ofCodes(List<RequestMetrics> requests) {
        Map<FailureKind, RetryAfter.Tally> counts = new EnumMap<>(FailureKind.class);
        for (RequestMetrics r : requests) {
            if (r.succeeded() || !serversWords(r.failureKind()) || r.failureCode() <= 0) continue;
            counts.computeIfAbsent(r.failureKind(), k -> new RetryAfter.Tally())
                    .add(String.valueOf(r.failureCode()), r.failureCode(), null);
        }
        return mostCommon(counts);
    }

    private static boolean serversWords(FailureKind kind) {
        return kind == FailureKind.HTTP_STATUS || kind == FailureKind.ERROR_IN_STREAM;
    }

    /**
     * Each kind's most frequent entry (the first seen among equals) as "Nx entry", then what a 429 or a
     * Retry-After needs said: {@link RetryAfter.Tally}, the words every line that counts failures by status uses.
     */
    private static Map<FailureKind, String> mostCommon(Map<FailureKind, RetryAfter.Tally> counts) {
        Map<FailureKind, String> top = new EnumMap<>(FailureKind.class);
        counts.forEach((kind, tally) -> top.put(kind, tally.mostCommon()));
        return top;
    }

    /** A failure's message, short: the server's own words in an error body, else the body's text without markup. */
    static String words(String message) {
        if (message == null) return "";
        // redacted before it is read (a key the cut would leave half of is whole here) and after (JSON escapes)
        String text = Redaction.secrets(ErrorBodies.oneLine(Redaction.secrets(message), MESSAGE_CHARS));
        return text.endsWith(".") && !text.endsWith("..") ? text.substring(0, text.length() - 1) : text; // in a list
    }
}

package io.llmperf4j.run;

import io.llmperf4j.model.ErrorBodies;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.PartialAnswer;
import io.llmperf4j.model.PrintableText;
import io.llmperf4j.model.RequestPhases;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RetryAfter;
import io.llmperf4j.report.summary.Redaction;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a finished run failed by its requests: every request failed, or more than {@code --max-error-rate}
 * percent did (cancellations at the end of a run count, as in the error rate). A failed run prints the most frequent
 * messages per failure kind, so a wrong key or model is read on the console instead of in the CSV. Each kind says
 * whose words they are: the server's (an HTTP status, an error in the stream) or the client's (it cancelled the
 * requests in flight at --timeout; an interrupted run never gets here). Messages that differ only in their numbers
 * (a millisecond count, an event count) are one line, each number that varies shown as its range: a 429's or a
 * 503's Retry-After too, said after the server's words with "not retried" ({@link RetryAfter#consoleNote}).
 */
final class FailureGate {
    /** How many distinct messages are printed per failure kind. */
    static final int MESSAGES_PER_KIND = 3;
    private static final int MESSAGE_CHARS = 200;

    private final double maxErrorRatePercent;

    /** @param maxErrorRatePercent 0..100, or NaN for none (then only a run where every request failed fails) */
    FailureGate(double maxErrorRatePercent) {
        this.maxErrorRatePercent = maxErrorRatePercent;
    }

    /**
     * The status of a completed run with these records: COMPLETED, or REQUESTS_FAILED after printing why to err. A run
     * that measured nothing failed too: its files hold no figure (QA: a --timeout the warmup used up exited 0).
     */
    RunStatus judge(List<RequestRecord> records, PrintStream err) {
        return judge(records, 0, err);
    }

    /**
     * As {@link #judge(List, PrintStream)}, with {@code neverSent} requests a distributed run lost with load workers
     * that left the cluster before sending them: failed against the asked count, as their LOST records are, so a
     * script's --max-error-rate sees a run that lost a third of its load.
     */
    RunStatus judge(List<RequestRecord> records, int neverSent, PrintStream err) {
        if (records.isEmpty()) {
            err.println("llmperf4j: the run failed: no measured request ended, so there is no figure: the run's time "
                    + "(--timeout) ran out before one did, during warmup (--warmup-requests) or the first requests; "
                    + "give it more time");
            return RunStatus.REQUESTS_FAILED;
        }
        long failed = records.stream().filter(r -> !r.succeeded()).count() + neverSent;
        long asked = records.size() + (long) neverSent;
        double ratePercent = 100.0 * failed / asked;
        String verdict;
        if (failed == asked) {
            verdict = "every request failed (" + failed + " of " + failed + ")";
        } else if (!Double.isNaN(maxErrorRatePercent) && ratePercent > maxErrorRatePercent) {
            verdict = String.format(Locale.ROOT, "%d of %d requests failed%s (%.1f%%, above --max-error-rate %s%%)",
                    failed, asked, neverSent == 0 ? "" : " or were never sent (" + neverSent + " not sent: their "
                            + "load worker left the cluster)", ratePercent, plain(maxErrorRatePercent));
        } else {
            return RunStatus.COMPLETED;
        }
        err.println("llmperf4j: the run failed: " + verdict + ":");
        for (String line : topMessages(records)) {
            err.println("  " + line);
        }
        return RunStatus.REQUESTS_FAILED;
    }

    /**
     * Per failure kind (most frequent first), its count, whose words they are, and the {@value #MESSAGES_PER_KIND}
     * most frequent messages (messages that differ only in numbers counted as one).
     */
    static List<String> topMessages(List<RequestRecord> records) {
        Map<FailureKind, Map<String, Shape>> byKind = new EnumMap<>(FailureKind.class);
        for (RequestRecord record : records) {
            if (record.succeeded()) continue;
            Failure failure = record.failure();
            String message = failure.kind() == FailureKind.CANCELLED && cancelledWords(record) != null
                    ? cancelledWords(record)
                    : failure.message().isBlank() ? "(no message)"
                    // the client's own words, on one line, not cut: the hint (the base to set) ends a long URL
                    : failure.clientWorded() ? Redaction.secrets(failure.message())
                    : failure.kind() == FailureKind.HTTP_STATUS // a body: an HTML page is shortened to its words
                    ? ErrorBodies.oneLine(Redaction.secrets(RetryAfter.without(failure.message())), MESSAGE_CHARS)
                    + RetryAfter.consoleNote(failure.code(), new RetryAfter.Range().addFrom(failure.message()))
                    // an error event's code is a status too: a 429 there is as unretried as an HTTP 429
                    : oneLine(serverMessage(failure.message())) + (failure.kind() == FailureKind.ERROR_IN_STREAM
                    ? RetryAfter.consoleNote(failure.code(), null) : "");
            String code = failure.code() > 0 ? failure.code() + " " : ""; // never merged: 429 and 503 differ
            // the status said once: not before words that name it ("HTTP 302 redirect to ...")
            String shown = failure.withCode(message).equals(message) ? "" : code;
            Shape shape = byKind.computeIfAbsent(failure.kind(), k -> new TreeMap<>())
                    .computeIfAbsent(code + NUMBER.matcher(message).replaceAll("#"), k -> new Shape(shown, message));
            shape.add(message);
        }
        List<Map.Entry<FailureKind, Map<String, Shape>>> kinds = new ArrayList<>(byKind.entrySet());
        kinds.sort(Comparator.comparingInt((Map.Entry<FailureKind, Map<String, Shape>> e) -> -total(e.getValue())));
        List<String> lines = new ArrayList<>();
        for (Map.Entry<FailureKind, Map<String, Shape>> kind : kinds) {
            int count = total(kind.getValue());
            lines.add(kind.getKey() + " x" + count + whose(kind.getKey(), count) + ":");
            kind.getValue().values().stream()
                    .sorted(Comparator.comparingInt((Shape shape) -> -shape.count))
                    .limit(MESSAGES_PER_KIND)
                    .forEach(shape -> lines.add("  " + shape.count + "x " + shape.text()));
        }
        return lines;
    }

    /**
     * What had come of a request the client cancelled in flight, from its record (QA: a server that accepted the
     * connections and never answered read "cancelled while in flight"): no response headers, headers and no event,
     * events without content, or part of an answer; in {@link PartialAnswer}'s facts, without its seconds (messages
     * are merged by their numbers). Null when the record does not know (read back from older files).
     */
    static String cancelledWords(RequestRecord record) {
        RequestPhases phases = record.phases();
        if (phases == null || !phases.known()) return null;
        PartialAnswer answer = PartialAnswer.of(record);
        if (answer == null) {
            if (phases.requestWrittenNanos() >= 0) {
                return "no response headers: the server accepted the connection and the request but never answered";
            }
            return phases.connectionReadyNanos() >= 0 ? "no response headers: the request was not written yet"
                    : "no connection yet: the connect had not completed";
        }
        if (answer.contentEvents() > 0) {
            return "cut mid-answer, after " + answer.contentEvents() + " content event"
                    + (answer.contentEvents() == 1 ? "" : "s");
        }
        if (answer.events() > 0) {
            return "the server answered 200 and " + answer.events() + " event" + (answer.events() == 1 ? "" : "s")
                    + " without content, then no content";
        }
        return "the server answered with its status and headers, then no event";
    }

    /** Whose words a kind's messages are, or what happened, for the kind's line. */
    private static String whose(FailureKind kind, int count) {
        return switch (kind) {
            case HTTP_STATUS, ERROR_IN_STREAM -> ", the server said";
            case CANCELLED -> ", the client cancelled " + (count == 1 ? "it" : "them") + " at --timeout (in flight "
                    + "when the run ended)";
            case REQUEST_TIMEOUT -> ", the client gave up at --request-timeout";
            case IDLE_TIMEOUT -> ", the client gave up at --idle-timeout";
            default -> "";
        };
    }

    /** A run of digits: what may differ between messages of one shape. */
    private static final Pattern NUMBER = Pattern.compile("\\d+");

    /** Messages that differ only in their numbers: how many, and each number's least and greatest value. */
    private static final class Shape {
        private final String code;
        private final String first;
        private long[] min;
        private long[] max;
        private int count;

        Shape(String code, String first) {
            this.code = code;
            this.first = first;
        }

        void add(String message) {
            count++;
            long[] numbers = NUMBER.matcher(message).results()
                    .mapToLong(m -> m.group().length() > 18 ? Long.MAX_VALUE : Long.parseLong(m.group())).toArray();
            if (min == null) {
                min = numbers.clone();
                max = numbers.clone();
                return;
            }
            for (int i = 0; i < numbers.length; i++) {
                min[i] = Math.min(min[i], numbers[i]);
                max[i] = Math.max(max[i], numbers[i]);
            }
        }

        /** The message with each number that varied shown as {@code least-greatest}. */
        String text() {
            Matcher m = NUMBER.matcher(first);
            StringBuilder out = new StringBuilder(code);
            int i = 0;
            while (m.find()) {
                String value = min[i] == max[i] ? m.group() : min[i] + "-" + max[i];
                m.appendReplacement(out, Matcher.quoteReplacement(value));
                i++;
            }
            m.appendTail(out);
            return out.toString();
        }
    }

    /** The server's message in an error body (see {@link ErrorBodies}), with anything key-shaped redacted. */
    static String serverMessage(String body) {
        return Redaction.secrets(ErrorBodies.serverMessage(body));
    }

    private static int total(Map<String, Shape> shapes) {
        return shapes.values().stream().mapToInt(shape -> shape.count).sum();
    }

    /** The server's words (a stream's error event) on one printable line: controls escaped (PrintableText). */
    private static String oneLine(String message) {
        String flat = message.replaceAll("\\s+", " ").strip();
        return PrintableText.of(flat.length() <= MESSAGE_CHARS ? flat : flat.substring(0, MESSAGE_CHARS) + "...");
    }

    private static String plain(double value) {
        return value == Math.rint(value) ? String.valueOf((long) value) : String.valueOf(value);
    }
}

package io.llmperf4j.model;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An error response's {@code Retry-After} header as a failure's message carries it: appended as
 * {@code " [Retry-After: 7]"} (so llmperf's {@code error_msg} keeps it), read back here for the console, which quotes
 * the server's words without it and says the header apart, with the range a run saw: the client never retries
 * (llmperf does not either), and a reader of a 429 line must not have to guess that.
 */
public final class RetryAfter {

    /** The note at the end of a message: the header's value (a number of seconds or an HTTP date). */
    private static final Pattern NOTE = Pattern.compile(" ?\\[Retry-After: ([^\\]\\r\\n]*)\\]$");

    private RetryAfter() {
    }

    /** The note a failure's message ends with for a response that sent {@code value}. */
    public static String note(String value) {
        return " [Retry-After: " + value + "]";
    }

    /** The header's value a message's note holds, or null when the message has none. */
    public static String valueIn(String message) {
        if (message == null) return null;
        Matcher m = NOTE.matcher(message);
        return m.find() ? m.group(1).strip() : null;
    }

    /** {@code message} without its note. */
    public static String without(String message) {
        if (message == null) return null;
        Matcher m = NOTE.matcher(message);
        return m.find() ? message.substring(0, m.start()) : message;
    }

    /**
     * The console's words after a failure's message: {@code " [Retry-After: 3-7 s; not retried]"} when every failure
     * counted carried the header, {@code " [3 with Retry-After: 7 s; not retried]"} when only some did (the others
     * are no less unretried, but sent no value), {@code " [not retried]"} for a 429 without it, else "". A 429 or a
     * Retry-After asks the client to come back; this client never does.
     */
    public static String consoleNote(int status, Range range) {
        if (range != null && !range.isEmpty()) {
            String some = range.carried < range.seen ? range.carried + " with " : "";
            return " [" + some + "Retry-After: " + range + "; not retried]";
        }
        return status == 429 ? " [not retried]" : "";
    }

    /**
     * Failures counted by what they were, for a line that summarises them by status ("18x 429"): each with the note
     * the console's failure line gives it ({@link #consoleNote}), so "Kept up: no: 18 of 60 arrivals failed (18x 429
     * [Retry-After: 3-7 s; not retried])" says what "3x 429 Rate limit exceeded [Retry-After: 3-7 s; not retried]"
     * says. Most frequent first, the first seen first among equals.
     */
    public static final class Tally {
        private final Map<String, Entry> byWhat = new LinkedHashMap<>();

        /**
         * Counts one failure.
         *
         * @param what    how the line names it: an HTTP status ("429") or a kind ("request timeout")
         * @param status  its HTTP status, 0 when it had none (a 429 without the header is still "not retried")
         * @param message its message, which may end with a Retry-After note ({@link #note}); null when none
         */
        public Tally add(String what, int status, String message) {
            Entry entry = byWhat.computeIfAbsent(what, k -> new Entry(status));
            entry.count++;
            entry.retryAfter.addFrom(message);
            return this;
        }

        public boolean isEmpty() {
            return byWhat.isEmpty();
        }

        /**
         * "18x 429 [Retry-After: 3-7 s; not retried], 1x request timeout", "8x 429 [3 with Retry-After: 7 s; not
         * retried]" when 5 of them sent no Retry-After; "" when nothing was counted.
         */
        @Override
        public String toString() {
            return String.join(", ", worded(Integer.MAX_VALUE));
        }

        /** The most frequent alone, "3x 429 Rate limit exceeded [Retry-After: 7 s; not retried]"; "" when none. */
        public String mostCommon() {
            List<String> top = worded(1);
            return top.isEmpty() ? "" : top.get(0);
        }

        private List<String> worded(int most) {
            List<Map.Entry<String, Entry>> all = new ArrayList<>(byWhat.entrySet());
            all.sort(Comparator.comparingInt((Map.Entry<String, Entry> e) -> e.getValue().count).reversed());
            List<String> out = new ArrayList<>();
            for (Map.Entry<String, Entry> e : all.subList(0, Math.min(most, all.size()))) {
                out.add(e.getValue().count + "x " + e.getKey()
                        + consoleNote(e.getValue().status, e.getValue().retryAfter));
            }
            return out;
        }

        private static final class Entry {
            private final int status;
            private final Range retryAfter = new Range();
            private int count;

            Entry(int status) {
                this.status = status;
            }
        }
    }

    /**
     * The Retry-After values of several failures: the least and greatest seconds, or the first date, and how many of
     * the failures carried one, so that 3 of 8 are not said as if all 8 did.
     */
    public static final class Range {
        /** An HTTP date is 29 characters; anything longer is cut. */
        private static final int OTHER_CHARS = 40;
        /** The failures added, with a value or not. */
        private int seen;
        /** Those whose message carried a value. */
        private int carried;
        private long minSeconds = Long.MAX_VALUE;
        private long maxSeconds = Long.MIN_VALUE;
        private String firstOther;
        private boolean severalOthers;

        /** Adds the value a message's note holds; a message without one is counted as one without a value. */
        public Range addFrom(String message) {
            seen++;
            String value = valueIn(message);
            if (value == null || value.isEmpty()) return this;
            carried++;
            if (value.matches("\\d{1,18}")) {
                long seconds = Long.parseLong(value);
                minSeconds = Math.min(minSeconds, seconds);
                maxSeconds = Math.max(maxSeconds, seconds);
            } else {
                String shown = PrintableText.quote(value, OTHER_CHARS); // an HTTP date, or what a server sent
                if (firstOther == null) firstOther = shown;
                else if (!firstOther.equals(shown)) severalOthers = true;
            }
            return this;
        }

        public boolean isEmpty() {
            return firstOther == null && minSeconds > maxSeconds;
        }

        /** "7 s", "3-7 s", an HTTP date as sent, or both; "" when empty. */
        @Override
        public String toString() {
            String seconds = minSeconds > maxSeconds ? null
                    : minSeconds == maxSeconds ? minSeconds + " s" : minSeconds + "-" + maxSeconds + " s";
            String other = firstOther == null ? null : firstOther + (severalOthers ? " and others" : "");
            if (seconds == null) return other == null ? "" : other;
            return other == null ? seconds : seconds + ", " + other;
        }
    }
}

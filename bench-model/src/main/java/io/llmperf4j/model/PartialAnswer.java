package io.llmperf4j.model;

import java.time.Duration;

/**
 * What came of an answer a check gave up on (the pre-run check's cancelled or timed-out request), in facts that cross
 * a cluster: a worker's check carries it to the coordinator, which words it as this machine's check would
 * ({@link #words()}): a server that answered and then stalled is a stalled engine, not one with "no answer".
 *
 * @param headers       whether the response's status and headers came
 * @param events        the data events that came
 * @param contentEvents the events with content among them
 * @param quietNanos    how long nothing more came before the check gave up: since the last content event, or else
 *                      since the headers
 */
public record PartialAnswer(boolean headers, int events, int contentEvents, long quietNanos) {

    /** What came of {@code record}'s answer; null when nothing came (or no record). */
    public static PartialAnswer of(RequestRecord record) {
        if (record == null) return null;
        long headersNanos = record.phases() == null ? -1 : record.phases().responseHeadersNanos();
        int events = record.dataEventCount();
        if (headersNanos < 0 && events == 0) return null;
        int contents = record.contentEventNanos().length;
        long quiet = contents > 0 ? record.e2eNanos() - record.lastContentNanos()
                : headersNanos >= 0 ? record.e2eNanos() - headersNanos : 0;
        return new PartialAnswer(true, events, contents, Math.max(0, quiet));
    }

    /**
     * "answered 200 and 2 content events, then nothing more for 2.9 s", "answered 200 and 1 event without content,
     * then no content", "answered with its status and headers, then no event for 2.9 s".
     */
    public String words() {
        if (contentEvents > 0) {
            return "answered 200 and " + contentEvents + " content event" + (contentEvents == 1 ? "" : "s")
                    + ", then nothing more for " + seconds(Duration.ofNanos(quietNanos));
        }
        if (events > 0) {
            return "answered 200 and " + events + " event" + (events == 1 ? "" : "s") + " without content, then no "
                    + "content";
        }
        return "answered with its status and headers, then no event for " + seconds(Duration.ofNanos(quietNanos));
    }

    /** "3 s", "2.9 s": tenths, rounded first, so 999 ms and 1,000 ms both read "1 s" (not "1.0 s" and "1 s"). */
    public static String seconds(Duration duration) {
        long tenths = Math.round(duration.toNanos() / 1e8);
        return tenths % 10 == 0 ? tenths / 10 + " s" : tenths / 10 + "." + tenths % 10 + " s";
    }
}

package io.llmperf4j.model;

import java.util.Arrays;
import java.util.PriorityQueue;

/**
 * How many of a request's output tokens each of its content events carried, by the same source as the request's
 * count n ({@link OutputTokenPolicy#source}): the one rule per-token ITL, the MULTI_TOKEN_CHUNKS warning, the page's
 * tokens over time and the events CSV's {@code output_tokens} read (METRICS.md §2, "Tokens per event").
 *
 * <ul>
 *   <li>n is the client's count: the client tokenizer's tokens whose text ends in each event
 *       ({@link RequestRecord#contentEventTokens()}), as counted.</li>
 *   <li>n is the server's {@code usage.completion_tokens}: the server's n spread over the events, so they add up to
 *       it. Each event gets 1 when n ≥ events (a server streams text as it decodes tokens, so an event with text
 *       follows at least one token: with n = events, one token per event whatever the client tokenizer makes of the
 *       text); beyond that, n goes in proportion to the client's tokens per event (their characters without a
 *       client count; equal shares without either), rounded to whole tokens by {@link #spread}: the client's counts
 *       stand when they add up to n with a token in every event. An event that gets 0 (only when n < events) carries its gap over to the next, as a half
 *       word does in the client's count.</li>
 *   <li>n is the server's but reasoning came first: the server's n counts reasoning tokens that no content event
 *       carries, so the client's counts stand (source {@link OutputTokenPolicy.Source#CLIENT_TOKENIZER}).</li>
 * </ul>
 * Absent ({@link #counted()} false) without content events or without a count to spread. The record's array is
 * read, never copied; one token per event needs no array.
 */
public final class EventTokenCounts {

    /** No count per event. */
    public static final EventTokenCounts NONE = new EventTokenCounts(0, null, OutputTokenPolicy.Source.NONE);

    private final int events;
    /** Tokens per event; null with {@code events > 0} for one token each. */
    private final int[] counts;
    private final OutputTokenPolicy.Source source;

    private EventTokenCounts(int events, int[] counts, OutputTokenPolicy.Source source) {
        this.events = events;
        this.counts = counts;
        this.source = source;
    }

    /** The counts of {@code record}'s content events under {@code policy}; see the class comment. */
    public static EventTokenCounts of(RequestRecord record, OutputTokenPolicy policy) {
        int events = record.contentEventNanos().length;
        if (events == 0) return NONE;
        int[] client = record.contentEventTokens();
        boolean clientCounted = client.length == events;
        OutputTokenPolicy.Source source = policy.source(record);
        if (source == OutputTokenPolicy.Source.SERVER_USAGE && record.firstReasoningNanos() < 0) {
            int[] chars = record.contentEventChars();
            int[] weights = clientCounted ? client : chars.length == events ? chars : null;
            return spread(OutputTokenPolicy.serverOutputTokens(record).getAsInt(), events, weights);
        }
        if (source == OutputTokenPolicy.Source.NONE || !clientCounted) return NONE;
        return new EventTokenCounts(events, client, OutputTokenPolicy.Source.CLIENT_TOKENIZER);
    }

    /** Counts given per event (the client's, or a test's), as they are. */
    public static EventTokenCounts ofCounts(int[] counts, OutputTokenPolicy.Source source) {
        if (counts == null || counts.length == 0) return NONE;
        return new EventTokenCounts(counts.length, counts, source);
    }

    /**
     * The server's {@code n} over {@code events} events, in whole tokens adding up to n: each event's share
     * q = n × weight / Σ weights ({@code weights} null or all 0: equal shares), at least 1 each when n ≥ events.
     * From those floors each token left goes to the event furthest below its share, and when the floors of 1 took
     * more than n, each one too many comes from the event furthest above its share; ties favour the earlier event.
     * So client counts that add up to n with a token in every event stand, and n = events gives one token per event.
     */
    static EventTokenCounts spread(int n, int events, int[] weights) {
        if (n == events) return new EventTokenCounts(events, null, OutputTokenPolicy.Source.SERVER_USAGE);
        long total = 0;
        if (weights != null) for (int w : weights) total += Math.max(0, w);
        boolean equal = total == 0;
        long of = equal ? events : total;
        int floor = n >= events ? 1 : 0;
        int[] counts = new int[events];
        // (share − count) × of, exactly: how far each event is below its share
        long[] below = new long[events];
        long given = 0;
        for (int i = 0; i < events; i++) {
            long scaled = (long) n * (equal ? 1 : Math.max(0, weights[i]));
            counts[i] = (int) Math.max(floor, scaled / of);
            below[i] = scaled - counts[i] * of;
            given += counts[i];
        }
        if (given < n) {
            // each event is below its share by less than one token here, so each gets at most one more
            Integer[] order = new Integer[events];
            for (int i = 0; i < events; i++) order[i] = i;
            Arrays.sort(order, (a, b) -> below[a] != below[b] ? Long.compare(below[b], below[a])
                    : Integer.compare(a, b));
            for (int k = 0; k < n - given; k++) counts[order[k]]++;
        } else if (given > n) {
            PriorityQueue<Integer> above = new PriorityQueue<>((a, b) -> below[a] != below[b]
                    ? Long.compare(below[a], below[b]) : Integer.compare(b, a));
            for (int i = 0; i < events; i++) if (counts[i] > floor) above.add(i);
            for (long k = given; k > n; k--) {
                int i = above.poll();
                counts[i]--;
                below[i] += of;
                if (counts[i] > floor) above.add(i);
            }
        }
        return new EventTokenCounts(events, counts, OutputTokenPolicy.Source.SERVER_USAGE);
    }

    /** True when every content event has a count. */
    public boolean counted() {
        return events > 0;
    }

    /** How many events the counts cover (0 when not counted). */
    public int events() {
        return events;
    }

    /** The tokens of the i-th content event. */
    public int count(int i) {
        if (i < 0 || i >= events) throw new IndexOutOfBoundsException("event " + i + " of " + events);
        return counts == null ? 1 : counts[i];
    }

    /** Σ tokens over the events (negative counts as 0); -1 when not counted. */
    public long total() {
        if (events == 0) return -1;
        if (counts == null) return events;
        long sum = 0;
        for (int t : counts) sum += Math.max(0, t);
        return sum;
    }

    /** Where the counts came from: the server's n spread, the client tokenizer's, or none. */
    public OutputTokenPolicy.Source source() {
        return source;
    }

    /** The counts in a new array (empty when not counted). */
    public int[] toArray() {
        int[] out = new int[events];
        for (int i = 0; i < events; i++) out[i] = count(i);
        return out;
    }
}

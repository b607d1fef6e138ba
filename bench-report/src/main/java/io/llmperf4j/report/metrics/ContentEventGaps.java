package io.llmperf4j.report.metrics;

import io.llmperf4j.model.EventTokenCounts;
import io.llmperf4j.model.OutputTokenPolicy;
import java.util.function.DoubleConsumer;

/**
 * A request's inter-token latencies, computed when asked from its record's content events: the gaps between
 * consecutive events ({@code events − 1} of them) and the per-token samples of
 * {@link RequestMetrics#perTokenItl(long[], int[])}, over the tokens per event of the request's own token source
 * ({@link EventTokenCounts}: the server's n spread over the events when n is the server's, else the client's count).
 * The record's arrays are read, never copied: the record owns them and nothing changes them once it is made.
 * Holding the gaps as arrays of their own cost 16 bytes a token per request (8 MB for 1,024 requests of 256 tokens,
 * with the copies), every time a request's metrics were made. The server's n spread over the events needs an array
 * of 4 bytes an event of its own, unless it is one token per event (the common case), which needs none.
 */
public final class ContentEventGaps {

    private static final long[] NO_EVENTS = new long[0];

    /** No event, so no gap. */
    public static final ContentEventGaps NONE = new ContentEventGaps(NO_EVENTS, EventTokenCounts.NONE);

    private final long[] eventNanos;
    /** Tokens completed in each event; not {@link EventTokenCounts#counted()} unless counted for every event. */
    private final EventTokenCounts eventTokens;
    private final int perTokenCount;

    private ContentEventGaps(long[] eventNanos, EventTokenCounts eventTokens) {
        this.eventNanos = eventNanos;
        this.eventTokens = eventTokens;
        this.perTokenCount = eventTokens.counted() ? perTokenSamples(eventTokens) : 0;
    }

    /**
     * The gaps of content events arriving at {@code eventNanos}, each completing {@code eventTokens} tokens (per-token
     * samples only when that array is parallel to the first, counted by the client). Both arrays are kept as they are.
     */
    public static ContentEventGaps of(long[] eventNanos, int[] eventTokens) {
        return of(eventNanos, EventTokenCounts.ofCounts(eventTokens,
                OutputTokenPolicy.Source.CLIENT_TOKENIZER));
    }

    /**
     * The gaps of content events arriving at {@code eventNanos}, each completing {@code eventTokens}' tokens
     * (per-token samples only when those cover every event). The array is kept as it is.
     */
    public static ContentEventGaps of(long[] eventNanos, EventTokenCounts eventTokens) {
        if (eventNanos == null || eventNanos.length == 0) return NONE;
        return new ContentEventGaps(eventNanos,
                eventTokens != null && eventTokens.events() == eventNanos.length ? eventTokens : EventTokenCounts.NONE);
    }

    /** The tokens per event the per-token samples divide by, and their source. */
    public EventTokenCounts eventTokens() {
        return eventTokens;
    }

    /** How many inter-event gaps there are. */
    public int count() {
        return Math.max(0, eventNanos.length - 1);
    }

    /** The i-th inter-event gap. */
    public long gap(int i) {
        if (i < 0 || i >= count()) throw new IndexOutOfBoundsException("gap " + i + " of " + count());
        return eventNanos[i + 1] - eventNanos[i];
    }

    /** The inter-event gaps, in arrival order, in a new array. */
    public long[] gaps() {
        long[] gaps = new long[count()];
        for (int i = 1; i < eventNanos.length; i++) gaps[i - 1] = eventNanos[i] - eventNanos[i - 1];
        return gaps;
    }

    /** How many per-token samples there are: 0 when the events' tokens were not counted. */
    public int perTokenCount() {
        return perTokenCount;
    }

    /** The per-token samples, in arrival order, in a new array. */
    public double[] perToken() {
        double[] values = new double[perTokenCount];
        int[] next = {0};
        forEachPerToken(v -> values[next[0]++] = v);
        return values;
    }

    /** Hands every per-token sample to {@code sink}, in arrival order, without an array. */
    public void forEachPerToken(DoubleConsumer sink) {
        if (perTokenCount == 0) return;
        long previousNanos = -1;
        for (int i = 0; i < eventNanos.length; i++) {
            int tokens = eventTokens.count(i);
            if (tokens <= 0) continue;
            if (previousNanos >= 0) {
                double share = (double) (eventNanos[i] - previousNanos) / tokens;
                for (int t = 0; t < tokens; t++) sink.accept(share);
            }
            previousNanos = eventNanos[i];
        }
    }

    /** The tokens the content events completed, or -1 when they were not counted for every event. */
    public long tokens() {
        return eventTokens.total();
    }

    /** Samples of the events after the first that completed a token: the first one's tokens give none. */
    static int perTokenSamples(EventTokenCounts eventTokens) {
        int samples = 0;
        boolean first = true;
        for (int i = 0; i < eventTokens.events(); i++) {
            int tokens = eventTokens.count(i);
            if (tokens <= 0) continue;
            if (!first) samples += tokens;
            first = false;
        }
        return samples;
    }
}

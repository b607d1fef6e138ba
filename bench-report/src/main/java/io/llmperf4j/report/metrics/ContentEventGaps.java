package io.llmperf4j.report.metrics;

import java.util.function.DoubleConsumer;

/**
 * A request's inter-token latencies, computed when asked from its record's content events: the gaps between
 * consecutive events ({@code events − 1} of them) and the per-token samples of
 * {@link RequestMetrics#perTokenItl(long[], int[])}. The record's arrays are read, never copied: the record owns
 * them and nothing changes them once it is made. Holding the gaps as arrays of their own cost 16 bytes a token per
 * request (8 MB for 1,024 requests of 256 tokens, with the copies), every time a request's metrics were made.
 */
public final class ContentEventGaps {

    private static final long[] NO_EVENTS = new long[0];

    /** No event, so no gap. */
    public static final ContentEventGaps NONE = new ContentEventGaps(NO_EVENTS, null);

    private final long[] eventNanos;
    /** Tokens completed in each event, or null when they were not counted for every event. */
    private final int[] eventTokens;
    private final int perTokenCount;

    private ContentEventGaps(long[] eventNanos, int[] eventTokens) {
        this.eventNanos = eventNanos;
        this.eventTokens = eventTokens;
        this.perTokenCount = eventTokens == null ? 0 : perTokenSamples(eventTokens);
    }

    /**
     * The gaps of content events arriving at {@code eventNanos}, each completing {@code eventTokens} tokens (per-token
     * samples only when that array is parallel to the first). Both arrays are kept as they are.
     */
    public static ContentEventGaps of(long[] eventNanos, int[] eventTokens) {
        if (eventNanos == null || eventNanos.length == 0) return NONE;
        return new ContentEventGaps(eventNanos,
                eventTokens != null && eventTokens.length == eventNanos.length ? eventTokens : null);
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
            int tokens = eventTokens[i];
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
        if (eventTokens == null) return -1;
        long sum = 0;
        for (int t : eventTokens) sum += Math.max(0, t);
        return sum;
    }

    /** Samples of the events after the first that completed a token: the first one's tokens give none. */
    static int perTokenSamples(int[] eventTokens) {
        int samples = 0;
        boolean first = true;
        for (int tokens : eventTokens) {
            if (tokens <= 0) continue;
            if (!first) samples += tokens;
            first = false;
        }
        return samples;
    }
}

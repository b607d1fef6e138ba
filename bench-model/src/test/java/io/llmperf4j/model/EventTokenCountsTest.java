package io.llmperf4j.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

class EventTokenCountsTest {

    /**
     * A successful record of {@code eventTokens.length} content events 10 ms apart (chars 4 each), the client's
     * per-event counts {@code eventTokens} (null: not counted), llmperf's client count their sum + 1 BOS, usage
     * {@code usage} (null: none), reasoning first when {@code reasoned}.
     */
    private static RequestRecord record(int events, int[] eventTokens, Integer usage, boolean reasoned) {
        long[] nanos = new long[events];
        int[] chars = new int[events];
        for (int i = 0; i < events; i++) {
            nanos[i] = 100_000_000L + i * 10_000_000L;
            chars[i] = 4;
        }
        int client = eventTokens == null ? -1 : java.util.Arrays.stream(eventTokens).sum() + 1;
        return new RequestRecord(0, "r", null, 0, nanos[0], nanos[events - 1], nanos[events - 1] + 1, events + 2,
                nanos, "x", 10, 100, client, 10, usage, "length", null, chars, eventTokens,
                reasoned ? 50_000_000L : RequestRecord.NEVER, RequestRecord.NEVER, null);
    }

    private static int[] spread(int n, int... weights) {
        return EventTokenCounts.spread(n, weights.length, weights).toArray();
    }

    @Test
    void asManyServerTokensAsEventsIsOneTokenPerEventWhateverTheClientCounted() {
        EventTokenCounts counts = OutputTokenPolicy.DEFAULT.eventTokens(record(4, new int[] {3, 0, 4, 3}, 4, false));
        assertArrayEquals(new int[] {1, 1, 1, 1}, counts.toArray());
        assertEquals(OutputTokenPolicy.Source.SERVER_USAGE, counts.source());
        assertEquals(4, counts.total());
    }

    @Test
    void theServersCountGoesInProportionToTheClientsAndAddsUp() {
        assertArrayEquals(new int[] {1, 1, 8, 2}, spread(12, 1, 1, 8, 2), "the client's counts add up to n: stand");
        assertArrayEquals(new int[] {6, 18}, spread(24, 3, 9), "twice the client's");
        assertArrayEquals(new int[] {3, 3, 3}, spread(9, 3, 3, 4), "shares 2.7, 2.7, 3.6; ties to the earlier");
        // n >= events: at least one each; the one too many comes from the later of the events above their share
        assertArrayEquals(new int[] {3, 1, 2}, spread(6, 4, 0, 4));
        assertArrayEquals(new int[] {2, 1, 1, 1}, spread(5, 100, 0, 0, 1), "floors of 1, the rest to the largest share");
        // fewer tokens than events: some events carry none, their gaps go to the next
        assertArrayEquals(new int[] {1, 1, 0, 0}, spread(2, 1, 1, 1, 1));
        assertArrayEquals(new int[] {0, 1, 0}, spread(1, 1, 5, 1));
        // no weights: equal shares
        assertArrayEquals(new int[] {3, 2, 2}, spread(7, 0, 0, 0));
        assertArrayEquals(new int[] {3, 2, 2}, EventTokenCounts.spread(7, 3, null).toArray());
        assertArrayEquals(new int[] {0, 0, 0}, spread(0, 2, 2, 2));
    }

    @Test
    void withoutClientCountsTheServersCountFollowsTheCharacters() {
        EventTokenCounts counts = OutputTokenPolicy.DEFAULT.eventTokens(record(3, null, 9, false));
        assertArrayEquals(new int[] {3, 3, 3}, counts.toArray(), "4 chars each");
        assertEquals(OutputTokenPolicy.Source.SERVER_USAGE, counts.source());
    }

    @Test
    void theClientsCountsStandWhenTheyAreTheRequestsCount() {
        int[] client = {2, 0, 5};
        EventTokenCounts noUsage = OutputTokenPolicy.DEFAULT.eventTokens(record(3, client, null, false));
        assertArrayEquals(client, noUsage.toArray());
        assertEquals(OutputTokenPolicy.Source.CLIENT_TOKENIZER, noUsage.source());
        EventTokenCounts clientFirst = new OutputTokenPolicy(1, false).eventTokens(record(3, client, 3, false));
        assertArrayEquals(client, clientFirst.toArray(), "--prefer the client count");
        // the server's count includes reasoning tokens that no content event carries
        EventTokenCounts reasoned = OutputTokenPolicy.DEFAULT.eventTokens(record(3, client, 40, true));
        assertArrayEquals(client, reasoned.toArray());
        assertEquals(OutputTokenPolicy.Source.CLIENT_TOKENIZER, reasoned.source());
    }

    @Test
    void nothingToCountIsNotCounted() {
        assertFalse(OutputTokenPolicy.DEFAULT.eventTokens(record(3, null, null, false)).counted());
        assertFalse(OutputTokenPolicy.DEFAULT.eventTokens(record(3, null, 40, true)).counted(), "reasoned, no client");
        assertEquals(-1, EventTokenCounts.NONE.total());
    }
}

package io.llmperf4j.tokenize;

import io.llmperf4j.model.ClientTokenCount;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.TokenCounter;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Per-event token counts from real tokenizers' offsets (the model's {@link ClientTokenCount}). */
class ClientTokenCountTest {

    private static final int BOS = TokenCounter.NO_TEXT;

    /** A successful record whose content arrived as {@code events}, 10 ms apart. */
    private static RequestRecord streamed(String... events) {
        long[] nanos = new long[events.length];
        int[] chars = new int[events.length];
        for (int i = 0; i < events.length; i++) {
            nanos[i] = (i + 1) * 10_000_000L;
            chars[i] = events[i].length();
        }
        return new RequestRecord(0, "req-1", "cmpl-1", 0, nanos[0], nanos[events.length - 1],
                nanos[events.length - 1] + 1, events.length, nanos, String.join("", events), 10, 100, -1, null, null,
                "length", null, chars, null, RequestRecord.NEVER, RequestRecord.NEVER, null);
    }

    @Test
    void eachTokenBelongsToTheEventItEndsIn() {
        // events of 3, 4 and 5 chars; tokens end at 2, 3 | 5, 7 | 12 (one straddling token ends in the third)
        assertArrayEquals(new int[]{2, 2, 1}, ClientTokenCount.perEvent(new int[]{2, 3, 5, 7, 12}, new int[]{3, 4, 5}));
        assertArrayEquals(new int[]{1, 0, 1}, ClientTokenCount.perEvent(new int[]{BOS, 3, 12}, new int[]{3, 4, 5}));
        assertArrayEquals(new int[]{1}, ClientTokenCount.perEvent(new int[]{0}, new int[]{4}), "empty first token");
        assertArrayEquals(new int[0], ClientTokenCount.perEvent(new int[]{1}, new int[0]));
    }

    @Test
    void llama2CountsWordsPerChunkAndLeavesTheBosOut() {
        Tokenizer llama = Llama2Fixture.llama2();
        RequestRecord r = ClientTokenCount.count(streamed("the of", " and to", " in"), llama);
        assertArrayEquals(new int[]{2, 2, 1}, r.contentEventTokens());
        assertEquals(6, r.outputTokens(), "llmperf's count: 5 words + BOS");
        assertEquals(llama.count(r.generatedText()), r.outputTokens());
    }

    @Test
    void aWordSplitAcrossEventsCountsWhereItEnds() {
        Tokenizer llama = Llama2Fixture.llama2();
        RequestRecord r = ClientTokenCount.count(streamed("the o", "f and"), llama);
        assertArrayEquals(new int[]{1, 2}, r.contentEventTokens(), "' of' ends in the second event");
    }

    @Test
    void jtokkitOffsetsCountMultiByteText() {
        Tokenizer cl100k = Tokenizers.jtokkit("cl100k_base");
        RequestRecord r = ClientTokenCount.count(streamed("Hello", " wörld", " 😀!"), cl100k);
        int[] perEvent = r.contentEventTokens();
        assertEquals(3, perEvent.length);
        assertEquals(cl100k.count(r.generatedText()), Arrays.stream(perEvent).sum(), "no special tokens in cl100k");
        assertEquals(1, perEvent[0]);
    }

    @Test
    void aCounterWithoutOffsetsFillsOnlyTheTotal() {
        RequestRecord r = ClientTokenCount.count(streamed("a b", " c"), text -> 42);
        assertEquals(42, r.outputTokens());
        assertEquals(0, r.contentEventTokens().length);
    }

    @Test
    void recordsWithoutEventSizesGetNoPerEventCounts() {
        RequestRecord sized = streamed("the", " of");
        RequestRecord unsized = new RequestRecord(0, "req-2", null, 0, 1, 2, 3, 2, sized.contentEventNanos(),
                sized.generatedText(), 10, 100, -1, null, null, "length", null);
        RequestRecord r = ClientTokenCount.count(unsized, Llama2Fixture.llama2());
        assertEquals(3, r.outputTokens());
        assertEquals(0, r.contentEventTokens().length);
    }
}

package io.llmperf4j.tokenize;

import io.llmperf4j.model.ClientTokenCount;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.TokenCounter;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

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
    void aFailureWithoutTextCountsNoBosAndASuccessWithoutTextKeepsLlmperfsOne() {
        // QA (s-int): cancelled requests that received nothing read output_tokens_client 1, the BOS of ""
        Tokenizer llama = Llama2Fixture.llama2();
        RequestRecord nothing = new RequestRecord(0, "req-1", null, 0, -1, -1, 5_000_000L, 0, new long[0], "", 10,
                100, -1, null, null, null, new Failure(FailureKind.CANCELLED, -1, "cancelled while in flight"));
        assertEquals(0, ClientTokenCount.count(nothing, llama).outputTokens());
        assertEquals(-1, ClientTokenCount.count(nothing, text -> -1).outputTokens(), "a counter that never counts");
        RequestRecord partial = ClientTokenCount.count(new RequestRecord(0, "req-2", null, 0, 10_000_000L,
                10_000_000L, 20_000_000L, 1, new long[]{10_000_000L}, "the of", 10, 100, -1, null, null, null,
                new Failure(FailureKind.CONNECTION_CLOSED, -1, "closed")), llama);
        assertEquals(3, partial.outputTokens(), "a failure's partial text keeps llmperf's count, BOS included");
        RequestRecord noContent = new RequestRecord(0, "req-3", "cmpl-3", 0, -1, -1, 5_000_000L, 1, new long[0], "",
                10, 100, -1, null, null, "stop", null);
        assertEquals(1, ClientTokenCount.count(noContent, llama).outputTokens(), "llmperf's count of a success");
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

    /**
     * The Llama counter counts per event as it tokenizes (no token ends); its counts and totals are those of the
     * two steps it replaces, its own token ends counted per event, for every shape of text and of events.
     */
    @Test
    void perEventCountsAreThoseOfTheTokenEnds() {
        Tokenizer llama = Llama2Fixture.llama2();
        Random random = new Random(20261206);
        String base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        StringBuilder randomBase64 = new StringBuilder();
        while (randomBase64.length() < 40_000) randomBase64.append(base64.charAt(random.nextInt(64)));
        StringBuilder randomUnicode = new StringBuilder();
        while (randomUnicode.length() < 20_000) {
            int cp = random.nextInt(4) == 0 ? 0x10000 + random.nextInt(0x20000) : 0x21 + random.nextInt(0xFFDF);
            if (Character.isDefined(cp) && !Character.isWhitespace(cp) && !Character.isSurrogate((char) cp)) {
                randomUnicode.appendCodePoint(cp);
            }
        }
        List<String> texts = List.of(
                "", " ", "a", "The quick brown fox jumps over the lazy dog. It was, by all accounts, 1984 again.",
                " leading space and  two  spaces\nand a line", "x".repeat(100_000), "xy".repeat(3000),
                randomBase64.toString(), "\uE000\uE001 private use, naïve café \u00A0", "😀", "😀 hi", " 😀",
                "👨‍👩‍👧 family 👍🏽 skin tone 🦙🦙🦙", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝔘𝔫𝔦", "镇江 and 東京の夜, 𠀀𠀁 (CJK extension B)",
                randomUnicode.toString(), "the <s> added token", "lone \uD83E high");
        for (String text : texts) {
            List<int[]> splits = new ArrayList<>();
            splits.add(new int[]{text.length()}); // one event
            splits.add(new int[]{0, text.length(), 0}); // empty events before and after
            for (int k = 0; k < 4; k++) splits.add(randomEvents(random, text.length()));
            int[] eachChar = new int[text.length()]; // splits every word and every surrogate pair
            Arrays.fill(eachChar, 1);
            splits.add(eachChar);
            for (int[] events : splits) {
                int[] ends = llama.tokenEnds(text);
                TokenCounter.EventTokens counted = llama.tokensPerEvent(text, events);
                String shown = (text.length() > 40 ? text.substring(0, 40) + "..." : text) + " in "
                        + events.length + " events";
                assertEquals(ends.length, counted.total(), shown);
                assertEquals(llama.count(text), counted.total(), shown);
                assertArrayEquals(ClientTokenCount.perEvent(ends, events), counted.perEvent(), shown);
                assertEquals(ends.length - 1, Arrays.stream(counted.perEvent()).sum(), "all but the BOS: " + shown);
            }
        }
    }

    /** Event sizes adding up to {@code length}: empty ones, single characters, and longer ones. */
    private static int[] randomEvents(Random random, int length) {
        List<Integer> sizes = new ArrayList<>();
        int left = length;
        while (left > 0) {
            int size = switch (random.nextInt(4)) {
                case 0 -> 0;
                case 1 -> 1;
                case 2 -> random.nextInt(8);
                default -> random.nextInt(Math.max(1, length / 8));
            };
            size = Math.min(size, left);
            sizes.add(size);
            left -= size;
        }
        if (sizes.isEmpty()) sizes.add(0);
        return sizes.stream().mapToInt(Integer::intValue).toArray();
    }

    @Test
    void theBosAndAnAnswerStartingWithASurrogatePair() {
        Tokenizer llama = Llama2Fixture.llama2();
        TokenCounter.EventTokens empty = llama.tokensPerEvent("", new int[]{0});
        assertEquals(1, empty.total(), "the BOS alone");
        assertArrayEquals(new int[]{0}, empty.perEvent());
        // "▁" + the emoji's bytes: the prepended ▁ ends with the first character, after its second UTF-16 unit
        RequestRecord r = ClientTokenCount.count(streamed("\uD83D", "\uDE00", " hi"), llama);
        assertArrayEquals(ClientTokenCount.perEvent(llama.tokenEnds("😀 hi"), new int[]{1, 1, 3}),
                r.contentEventTokens());
        assertEquals(0, r.contentEventTokens()[0], "nothing ends inside the pair");
        assertEquals(llama.count("😀 hi"), r.outputTokens());
    }

    /** A counter that gives token ends only counts per event with them (the default). */
    @Test
    void theDefaultCountsTheTokenEndsPerEvent() {
        TokenCounter endsOnly = new TokenCounter() {
            @Override
            public int count(String text) {
                return 4;
            }

            @Override
            public int[] tokenEnds(String text) {
                return new int[]{BOS, 2, 3, 9};
            }
        };
        TokenCounter.EventTokens counted = endsOnly.tokensPerEvent("abc de fgh", new int[]{3, 0, 7});
        assertEquals(4, counted.total());
        assertArrayEquals(new int[]{2, 0, 1}, counted.perEvent());
        RequestRecord r = ClientTokenCount.count(streamed("abc", "", " de fgh"), endsOnly);
        assertEquals(4, r.outputTokens());
        assertArrayEquals(new int[]{2, 0, 1}, r.contentEventTokens());
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

package io.llmperf4j.tokenize.prompt;

import static io.llmperf4j.tokenize.Llama2Fixture.llama2;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.TokenizedText;
import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.Tokenizers;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Exact mode's per-line counting must give exactly the texts and counts that encoding every prompt gives. */
class ExactFastPathTest {
    private static final PromptParams EXACT = PromptParams.llmperfDefaults(PromptMode.EXACT);

    @Test
    void llama2AddsUpLineByLineAndGivesTheEncodedTextsOnSonnet() throws Exception {
        assertSameAsEncoding(llama2(), TestCorpora.sonnet(), EXACT.withRequestCount(300));
        assertSameAsEncoding(llama2(), TestCorpora.sonnet(), EXACT.withInput(20, 5).withRequestCount(300));
    }

    @Test
    void llama2GivesTheEncodedTextsOnTrickyText() {
        // emoji byte tokens, CJK and tabs: some prompts need the encoding path (no exact cut in their last line)
        assertSameAsEncoding(llama2(), TestCorpora.tricky84(), EXACT.withRequestCount(300).withSeed(3));
    }

    @Test
    void openAiEncodingsAddUpLineByLineToo() throws Exception {
        assertSameAsEncoding(Tokenizers.jtokkit("cl100k_base"), TestCorpora.sonnet(), EXACT.withRequestCount(300));
        assertSameAsEncoding(Tokenizers.jtokkit("o200k_base"), TestCorpora.tricky84(), EXACT.withRequestCount(200));
    }

    @Test
    void needsFarFewerEncodesThanPrompts() {
        AtomicInteger encodes = new AtomicInteger();
        PromptSynthesizer synthesizer = new PromptSynthesizer(new Counting(llama2(), encodes), TestCorpora.numbered84());
        assertTrue(synthesizer.usesLineCounts());
        PromptParams params = EXACT.withRequestCount(1000);
        encodes.set(0);
        synthesizer.synthesize(params);
        // the encoding path needs about 2.3 encodes a prompt; here each line cut met is measured once
        assertTrue(encodes.get() < 1_100, encodes + " encodes for 1,000 prompts");
        encodes.set(0);
        synthesizer.synthesize(params);
        assertEquals(16, encodes.get(), "once every cut is measured, only every 64th prompt is encoded, to check it");
    }

    @Test
    void aTokenizerThatAppendsEndOfTextIsNotCountedLineByLine() {
        Tokenizer withEos = new AppendsEos(new WordTokenizer());
        PromptSynthesizer synthesizer = new PromptSynthesizer(withEos, TestCorpora.numbered84());
        assertFalse(synthesizer.usesLineCounts());
        for (RequestSpec request : synthesizer.synthesize(EXACT.withRequestCount(50))) {
            assertEquals(request.numberInputTokens(), withEos.count(request.prompt()));
        }
    }

    /** A tokenizer that passes the checks and then changes is caught by the sampled re-encoding. */
    @Test
    void aWrongSampleMakesItEncodeEveryPrompt() {
        AtomicBoolean drift = new AtomicBoolean();
        Tokenizer drifting = new Drifting(new WordTokenizer(), drift);
        PromptSynthesizer synthesizer = new PromptSynthesizer(drifting, TestCorpora.numbered84());
        assertTrue(synthesizer.usesLineCounts());
        drift.set(true); // from now on long texts count one more token than their lines add up to
        List<RequestSpec> requests = synthesizer.synthesize(EXACT.withRequestCount(200));
        for (RequestSpec request : requests) assertEquals(request.numberInputTokens(), drifting.count(request.prompt()));
        assertFalse(synthesizer.usesLineCounts(), "the fast path is dropped for good");
    }

    @Test
    void theCircuitWalksEveryOrderedPairOnce() {
        for (int n : new int[] {1, 2, 5, 84}) {
            int[] walk = LineAdditiveFitter.eulerianCircuit(n);
            assertEquals(n * n + 1, walk.length);
            Set<Long> pairs = new HashSet<>();
            for (int i = 0; i + 1 < walk.length; i++) assertTrue(pairs.add((long) walk[i] * n + walk[i + 1]));
            assertEquals(n * n, pairs.size());
        }
        assertArrayEquals(new int[] {0, 0, 1, 1, 0}, LineAdditiveFitter.eulerianCircuit(2));
    }

    private static void assertSameAsEncoding(Tokenizer tokenizer, List<String> corpus, PromptParams params) {
        PromptSynthesizer synthesizer = new PromptSynthesizer(tokenizer, corpus);
        assertTrue(synthesizer.usesLineCounts(), tokenizer.id());
        List<RequestSpec> fast = synthesizer.synthesize(params);
        List<RequestSpec> encoded = synthesizer.synthesizeEncodingEveryPrompt(params);
        assertEquals(encoded, fast);
        for (RequestSpec request : fast) {
            assertEquals(request.numberInputTokens(), tokenizer.count(request.prompt()),
                    () -> tokenizer.id() + " request " + request.index());
        }
        assertTrue(synthesizer.usesLineCounts(), "no sample disagreed");
    }

    private record Counting(Tokenizer delegate, AtomicInteger encodes) implements Tokenizer {
        @Override
        public long[] encode(String text) {
            encodes.incrementAndGet();
            return delegate.encode(text);
        }

        @Override
        public TokenizedText encodeWithOffsets(String text) {
            encodes.incrementAndGet();
            return delegate.encodeWithOffsets(text);
        }

        @Override
        public int countWithoutSpecialTokens(String text) {
            return delegate.countWithoutSpecialTokens(text);
        }

        @Override
        public String decode(long[] ids) {
            return delegate.decode(ids);
        }

        @Override
        public String id() {
            return delegate.id();
        }
    }

    /** Like a post-processor that appends {@code </s>}: a token with no text at the end. */
    private record AppendsEos(Tokenizer delegate) implements Tokenizer {
        @Override
        public long[] encode(String text) {
            return encodeWithOffsets(text).ids();
        }

        @Override
        public TokenizedText encodeWithOffsets(String text) {
            TokenizedText inner = delegate.encodeWithOffsets(text);
            long[] ids = Arrays.copyOf(inner.ids(), inner.count() + 1);
            int[] ends = Arrays.copyOf(inner.endCharIndex(), inner.count() + 1);
            ids[inner.count()] = 2;
            ends[inner.count()] = TokenizedText.NO_OFFSET;
            return new TokenizedText(ids, ends);
        }

        @Override
        public int countWithoutSpecialTokens(String text) {
            return delegate.countWithoutSpecialTokens(text);
        }

        @Override
        public String decode(long[] ids) {
            throw new UnsupportedOperationException();
        }

        @Override
        public String id() {
            return "words+eos";
        }
    }

    /** Counts texts over 1,000 characters one token higher once {@code drift} is set. */
    private record Drifting(Tokenizer delegate, AtomicBoolean drift) implements Tokenizer {
        @Override
        public long[] encode(String text) {
            return encodeWithOffsets(text).ids();
        }

        @Override
        public TokenizedText encodeWithOffsets(String text) {
            TokenizedText inner = delegate.encodeWithOffsets(text);
            if (!drift.get() || text.length() <= 1_000) return inner;
            long[] ids = Arrays.copyOf(inner.ids(), inner.count() + 1);
            int[] ends = Arrays.copyOf(inner.endCharIndex(), inner.count() + 1);
            ids[inner.count()] = 3;
            ends[inner.count()] = TokenizedText.NO_OFFSET;
            return new TokenizedText(ids, ends);
        }

        @Override
        public int countWithoutSpecialTokens(String text) {
            return delegate.countWithoutSpecialTokens(text);
        }

        @Override
        public String decode(long[] ids) {
            throw new UnsupportedOperationException();
        }

        @Override
        public String id() {
            return "drifting words";
        }
    }
}

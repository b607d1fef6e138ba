package io.llmperf4j.tokenize.prompt;

import static io.llmperf4j.tokenize.Llama2Fixture.llama2;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.TokenizedText;
import io.llmperf4j.tokenize.Tokenizer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PromptSynthesizerTest {
    /** llmperf's (max_tokens, number_input_tokens) for 550±150 in, 150±80 out, seed 11111 (CPython 3.11). */
    private static final List<List<Integer>> GOLDEN = List.of(
            List.of(167, 538), List.of(92, 581), List.of(231, 601), List.of(173, 531), List.of(64, 483),
            List.of(32, 509), List.of(56, 472), List.of(98, 967), List.of(101, 568), List.of(155, 639));
    private static final PromptParams DEFAULTS = PromptParams.llmperfDefaults(PromptMode.LLMPERF);

    @Test
    void reproducesLlmperfGoldenLengthsForAny84LineCorpus() {
        List<RequestSpec> requests = new PromptSynthesizer(new WordTokenizer(), TestCorpora.numbered84()).synthesize(DEFAULTS);
        assertEquals(GOLDEN, lengths(requests));
        for (int i = 0; i < requests.size(); i++) assertEquals(i, requests.get(i).index());
    }

    @Test
    void outputStddevOnlyChangesMaxTokens() {
        List<RequestSpec> requests = new PromptSynthesizer(new WordTokenizer(), TestCorpora.numbered84())
                .synthesize(DEFAULTS.withOutput(150, 10).withRequestCount(5));
        assertEquals(List.of(152, 142, 160, 152, 139), requests.stream().map(RequestSpec::maxTokens).toList());
        assertEquals(List.of(538, 581, 601, 531, 483), requests.stream().map(RequestSpec::numberInputTokens).toList());
    }

    @Test
    void zeroStddevGivesTheMeansButStillDraws() {
        List<RequestSpec> requests = new PromptSynthesizer(new WordTokenizer(), TestCorpora.numbered84())
                .synthesize(DEFAULTS.withInput(550, 0).withOutput(150, 0).withRequestCount(3));
        assertEquals(List.of(List.of(150, 550), List.of(150, 550), List.of(150, 550)), lengths(requests));
        assertTrue(!requests.get(0).prompt().equals(requests.get(1).prompt()), "each prompt gets its own shuffle");
    }

    @Test
    void matchesLlmperfOnItsSonnetCorpusWithLlama2() throws Exception {
        Tokenizer llama = llama2();
        List<String> sonnet = TestCorpora.sonnet();
        assertEquals(84, sonnet.size());
        List<RequestSpec> requests = new PromptSynthesizer(llama, sonnet).synthesize(DEFAULTS);

        assertEquals(GOLDEN, lengths(requests));
        String prefix = "Randomly stream lines from the following text with 167 output tokens. Don't generate eos tokens:\n\n";
        assertTrue(requests.get(0).prompt().startsWith(prefix + "And make Time's spoils despised every where.\n"),
                requests.get(0).prompt());
        // llmperf over-counts: each line's own BOS, and a character (not token) cut of the last line
        assertEquals(503, llama.count(requests.get(0).prompt()));
    }

    @Test
    void prefixCostsLikeLlmperfMeasured() {
        Tokenizer llama = llama2();
        assertEquals(25, llama.count(PromptPrefix.text(7)));
        assertEquals(26, llama.count(PromptPrefix.text(92)));
        assertEquals(27, llama.count(PromptPrefix.text(167)));
        assertEquals(28, llama.count(PromptPrefix.text(1024)));
    }

    @Test
    void isDeterministic() {
        PromptSynthesizer synthesizer = new PromptSynthesizer(new WordTokenizer(), TestCorpora.tricky84());
        PromptParams params = DEFAULTS.withRequestCount(50);
        assertEquals(synthesizer.synthesize(params), synthesizer.synthesize(params));
    }

    @Test
    void exactModeKeepsLlmperfsDrawsAndMeetsEveryLengthWithFakeTokenizer() {
        WordTokenizer words = new WordTokenizer();
        PromptSynthesizer synthesizer = new PromptSynthesizer(words, TestCorpora.tricky84());
        List<RequestSpec> exact = synthesizer.synthesize(PromptParams.llmperfDefaults(PromptMode.EXACT).withRequestCount(200));
        List<RequestSpec> llmperf = synthesizer.synthesize(DEFAULTS.withRequestCount(200));
        assertEquals(lengths(llmperf), lengths(exact));
        for (RequestSpec request : exact) assertEquals(request.numberInputTokens(), words.count(request.prompt()));
    }

    @Test
    void exactModeMeetsEveryLengthWithLlama2() throws Exception {
        Tokenizer llama = llama2();
        assertExact(llama, TestCorpora.tricky84(), 550, 150, 1000);
        assertExact(llama, TestCorpora.tricky84(), 20, 5, 1000);
    }

    @Test
    void exactModeMeetsEveryLengthOnSonnetWithLlama2() throws Exception {
        Tokenizer llama = llama2();
        assertExact(llama, TestCorpora.sonnet(), 550, 150, 1000);
        List<RequestSpec> tiny = assertExact(llama, TestCorpora.sonnet(), 20, 5, 1000);
        // below the prefix length: redrawn like llmperf, so the shortest prompt is a bare prefix (25 to 28 tokens)
        int shortest = tiny.stream().mapToInt(RequestSpec::numberInputTokens).min().orElseThrow();
        assertTrue(shortest >= 25 && shortest <= 28, "shortest " + shortest);
    }

    /** Guards the cut search: a regression once padded whole prompts with filler words, one encode per word. */
    @Test
    void exactModeNeedsFewEncodesAndFewFillerWords() {
        Tokenizer llama = llama2();
        AtomicInteger encodes = new AtomicInteger();
        Tokenizer counting = new CountingTokenizer(llama, encodes);
        PromptSynthesizer synthesizer = new PromptSynthesizer(counting, TestCorpora.tricky84());
        encodes.set(0);
        List<RequestSpec> requests = synthesizer.synthesize(PromptParams.llmperfDefaults(PromptMode.EXACT).withRequestCount(1000));
        assertTrue(encodes.get() < 3 * 1000, encodes + " encodes for 1,000 prompts");
        for (RequestSpec request : requests) {
            assertTrue(!request.prompt().endsWith(" the the the the"), request.prompt());
            assertEquals(request.numberInputTokens(), llama.count(request.prompt()));
        }
    }

    @Test
    void rejectsCorporaWithoutText() {
        WordTokenizer words = new WordTokenizer();
        assertEquals("the corpus has no lines",
                assertThrows(IllegalArgumentException.class, () -> new PromptSynthesizer(words, List.of())).getMessage());
        assertEquals("the corpus lines hold no text",
                assertThrows(IllegalArgumentException.class, () -> new PromptSynthesizer(words, List.of("\n", " "))).getMessage());
    }

    @Test
    void failsInsteadOfLoopingForeverWhenNoLengthCanBeDrawn() {
        PromptSynthesizer synthesizer = new PromptSynthesizer(new WordTokenizer(), TestCorpora.numbered84());
        IllegalArgumentException tooShort = assertThrows(IllegalArgumentException.class,
                () -> synthesizer.synthesize(DEFAULTS.withInput(5, 0)));
        assertTrue(tooShort.getMessage().startsWith("no input length >= 16 tokens (the prompt prefix)"), tooShort.getMessage());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> synthesizer.synthesize(DEFAULTS.withOutput(-10, 0)));
        assertTrue(negative.getMessage().startsWith("no positive value"), negative.getMessage());
    }

    private static List<RequestSpec> assertExact(Tokenizer tokenizer, List<String> corpus, int mean, int stddev, int count) {
        PromptSynthesizer synthesizer = new PromptSynthesizer(tokenizer, corpus);
        PromptParams params = PromptParams.llmperfDefaults(PromptMode.EXACT).withInput(mean, stddev).withRequestCount(count);
        List<RequestSpec> exact = synthesizer.synthesize(params);
        assertEquals(count, exact.size());
        for (RequestSpec request : exact) {
            assertEquals(request.numberInputTokens(), tokenizer.count(request.prompt()),
                    () -> "request " + request.index() + ": " + request.prompt());
        }
        // same draws as llmperf mode: the target n is met, not just reported
        assertEquals(lengths(synthesizer.synthesize(params.withMode(PromptMode.LLMPERF))), lengths(exact));
        return exact;
    }

    /** Counts encodes (line counts are cached by the synthesizer, so they are not counted here). */
    private record CountingTokenizer(Tokenizer delegate, AtomicInteger encodes) implements Tokenizer {
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

    private static List<List<Integer>> lengths(List<RequestSpec> requests) {
        return requests.stream().map(r -> List.of(r.maxTokens(), r.numberInputTokens())).toList();
    }
}

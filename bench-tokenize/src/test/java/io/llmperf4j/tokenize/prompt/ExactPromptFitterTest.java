package io.llmperf4j.tokenize.prompt;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class ExactPromptFitterTest {
    private static final WordTokenizer WORDS = new WordTokenizer();
    private static final String PREFIX = PromptPrefix.text(5); // 15 words + BOS = 16 tokens

    @Test
    void cutsAfterTheTargetToken() {
        List<String> lines = List.of("one two three\n", "four five\n");
        ExactPromptFitter fitter = new ExactPromptFitter(WORDS, new CorpusLines(lines, WORDS));
        ExactPromptFitter.Fitted fitted = fitter.fit(PREFIX, 16, lines, 16 + 7);
        assertEquals(PREFIX + "one two three\nfour five\none two", fitted.text());
        assertEquals(23, fitted.tokens());
    }

    @Test
    void theBarePrefixWhenTheTargetIsTheprefix() {
        List<String> lines = List.of("one two three\n");
        ExactPromptFitter fitter = new ExactPromptFitter(WORDS, new CorpusLines(lines, WORDS));
        assertEquals(new ExactPromptFitter.Fitted(PREFIX, 16), fitter.fit(PREFIX, 16, lines, 16));
    }

    @Test
    void padsWithFillerWordsWhenNoCutHitsTheTarget() {
        // every word is 4 tokens ending at the same place, so cuts give 16, 20, 24, ... tokens
        List<String> lines = List.of(WordTokenizer.LLAMA + " " + WordTokenizer.LLAMA + "\n");
        ExactPromptFitter fitter = new ExactPromptFitter(WORDS, new CorpusLines(lines, WORDS));
        assertEquals(new ExactPromptFitter.Fitted(PREFIX + " the the", 18), fitter.fit(PREFIX, 16, lines, 18));
        assertEquals(new ExactPromptFitter.Fitted(PREFIX + WordTokenizer.LLAMA + " the", 21),
                fitter.fit(PREFIX, 16, lines, 21));
    }
}

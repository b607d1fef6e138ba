package io.llmperf4j.tokenize.prompt;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class LlmperfPromptBodyTest {
    private static final WordTokenizer WORDS = new WordTokenizer();

    @Test
    void appendsWholeLinesThenCutsTheFirstThatDoesNotFitByCharacters() {
        List<String> lines = List.of("a b c\n", "d e\n"); // 4 and 3 tokens, each with its own BOS
        CorpusLines corpus = new CorpusLines(lines, WORDS);
        // 10 - 4 = 6, 6 - 3 = 3, then 3 - 4 < 0: the first 3 characters of "a b c\n"
        assertEquals("a b c\nd e\na b", LlmperfPromptBody.build(lines, corpus, 10));
        // exactly used up: the next line is cut to 0 characters
        assertEquals("a b c\nd e\n", LlmperfPromptBody.build(lines, corpus, 7));
        assertEquals("", LlmperfPromptBody.build(lines, corpus, 0));
        // the walk repeats the same order
        assertEquals("a b c\nd e\na b c\nd e\na", LlmperfPromptBody.build(lines, corpus, 15));
    }

    @Test
    void cutsByCodePointsAsPythonSlices() {
        String llamas = WordTokenizer.LLAMA.repeat(3) + "\n";
        assertEquals(WordTokenizer.LLAMA.repeat(2), LlmperfPromptBody.firstCodePoints(llamas, 2));
        assertEquals(llamas, LlmperfPromptBody.firstCodePoints(llamas, 40), "Python's line[:40] is the whole line");
        assertEquals("", LlmperfPromptBody.firstCodePoints(llamas, 0));
    }
}

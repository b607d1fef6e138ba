package io.llmperf4j.datasets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.Tokenizers;
import io.llmperf4j.tokenize.prompt.PromptMode;
import io.llmperf4j.tokenize.prompt.PromptParams;
import io.llmperf4j.tokenize.prompt.PromptSynthesizer;
import java.util.List;
import org.junit.jupiter.api.Test;

class DefaultCorpusTest {
    private final Corpus corpus = Corpus.defaultCorpus();

    @Test
    void isPinnedByItsDigest() {
        // any change to the generator changes every default prompt: then bump DefaultVerse.ID and this digest
        assertEquals("b3b51517ffa648e13d8c99de799508262d6e84e91f3298cd3992b08d19247ed7", corpus.sha256());
        assertEquals("llmperf4j-verse-v1", corpus.id());
        assertEquals("84 lines of generated English-like verse (llmperf4j-verse-v1, built in; llmperf's sonnet.txt "
                + "cannot be shipped)", corpus.description());
        assertEquals("Sometimes each summer covers a restless promise toward a shadow,\n", corpus.lines().get(81));
        assertEquals("My forest follows a lonely window yet sleeps slowly.", corpus.lines().get(83));
    }

    @Test
    void isGeneratedTheSameEveryTime() {
        assertEquals(corpus.lines(), DefaultVerse.generate());
        assertSame(corpus, Corpus.defaultCorpus());
    }

    @Test
    void hasSonnetShapedLines() {
        List<String> lines = corpus.lines();
        assertEquals(84, lines.size());
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            assertEquals(i < 83, line.endsWith("\n"), "line " + i);
            assertFalse(line.strip().contains("\n"), "line " + i);
            int words = line.strip().split(" ").length;
            assertTrue(words >= 8 && words <= 12, "line " + i + " has " + words + " words: " + line);
            assertTrue(Character.isUpperCase(line.charAt(0)), line);
            assertTrue(line.chars().allMatch(c -> c < 128), "ASCII only: " + line);
        }
        assertEquals(84, lines.stream().distinct().count(), "no repeated line");
    }

    @Test
    void costsAboutAsManyLlamaTokensAsSonnet() {
        assumeTrue(Tokenizers.builtInLlama2Available(), "built-in Llama-2 tokenizer not derived in this build (no npm)");
        Tokenizer llama = Tokenizers.builtInLlama2();
        // llmperf's sonnet.txt: 1,138 tokens over 84 lines (13.5 a line, each with its own BOS)
        assertEquals(1273, corpus.lines().stream().mapToInt(llama::count).sum());

        List<RequestSpec> requests = new PromptSynthesizer(llama, corpus.lines())
                .synthesize(PromptParams.llmperfDefaults(PromptMode.EXACT).withRequestCount(10));
        assertEquals(List.of(538, 581, 601, 531, 483, 509, 472, 967, 568, 639),
                requests.stream().map(RequestSpec::numberInputTokens).toList());
        for (RequestSpec request : requests) assertEquals(request.numberInputTokens(), llama.count(request.prompt()));
    }
}

package io.llmperf4j.tokenize;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/**
 * A lone UTF-16 surrogate (a stream that sent half of a pair as a {@code \uD83D} escape and never the rest) counts as
 * U+FFFD, as Python's tiktoken and the npm tiktoken 1.0.22 reference encode it: one token in cl100k_base (id 5809),
 * where jtokkit alone gave its three raw bytes (ids 169, 254, 121), and token ends that stay on the text's characters.
 */
class LoneSurrogateTest {
    private final Tokenizer cl100k = Tokenizers.resolve("cl100k_base", TokenizerOptions.defaults());
    private final Tokenizer o200k = Tokenizers.resolve("o200k_base", TokenizerOptions.defaults());

    @Test
    void aLoneSurrogateIsOneReplacementCharacter() {
        assertArrayEquals(new long[] {5809}, cl100k.encode("\ud83d"));
        assertArrayEquals(cl100k.encode("\ufffd"), cl100k.encode("\ud83d"));
        assertEquals(1, cl100k.count("\ud83d"));
        assertEquals(cl100k.count("x\ufffd\ufffd"), cl100k.count("x\ude00\ud83d"));
        assertEquals(o200k.count("a\ufffdb"), o200k.count("a\ud83db"));
        assertArrayEquals(o200k.encode("a\ufffdb"), o200k.encode("a\ud83db"));
    }

    @Test
    void tokenEndsStayOnTheTextsCharacters() {
        TokenizedText replaced = cl100k.encodeWithOffsets("a\ufffdb");
        TokenizedText lone = cl100k.encodeWithOffsets("a\ud83db");
        assertArrayEquals(replaced.ids(), lone.ids());
        assertArrayEquals(replaced.endCharIndex(), lone.endCharIndex());
        assertEquals(3, lone.endCharIndex()[lone.endCharIndex().length - 1]);
    }

    @Test
    void aWholePairIsLeftAsItIs() {
        String emoji = "hi \ud83d\ude00";
        assertSame(emoji, JtokkitTokenizer.wellFormed(emoji));
        assertEquals("\ufffd\ud83d\ude00\ufffd", JtokkitTokenizer.wellFormed("\ude00\ud83d\ude00\ud83d"));
    }
}

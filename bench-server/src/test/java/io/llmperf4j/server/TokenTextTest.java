package io.llmperf4j.server;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TokenTextTest {

    @Test
    void wordListIs256DistinctLowercaseWords() {
        String[] words = TokenText.words();
        assertEquals(256, words.length);
        assertEquals(256, new HashSet<>(Set.of(words)).size());
        for (String word : words) assertTrue(word.matches("[a-z]+"), word);
    }

    @Test
    void firstTokenHasNoSpaceAndLaterTokensHaveOne() {
        long seed = TokenText.seedOf("prompt");
        assertFalse(TokenText.token(seed, 0).startsWith(" "));
        for (int i = 1; i < 100; i++) {
            String token = TokenText.token(seed, i);
            assertTrue(token.startsWith(" ") && token.substring(1).matches("[a-z]+"), token);
        }
        String text = TokenText.text(seed, 0, 100);
        assertEquals(100, text.split(" ").length);
        assertEquals(text, TokenText.text(seed, 0, 37) + TokenText.text(seed, 37, 100));
    }

    @Test
    void sequenceDependsOnlyOnThePrompt() {
        assertEquals(TokenText.text(TokenText.seedOf("a"), 0, 50), TokenText.text(TokenText.seedOf("a"), 0, 50));
        assertNotEquals(TokenText.text(TokenText.seedOf("a"), 0, 50), TokenText.text(TokenText.seedOf("b"), 0, 50));
    }

    @Test
    void wordsAreUsedRoughlyEvenly() {
        int[] counts = new int[256];
        String[] words = TokenText.words();
        java.util.Map<String, Integer> index = new java.util.HashMap<>();
        for (int i = 0; i < words.length; i++) index.put(words[i], i);
        long seed = TokenText.seedOf("even");
        for (int i = 0; i < 256 * 100; i++) counts[index.get(TokenText.token(seed, i).trim())]++;
        for (int count : counts) assertTrue(count > 40 && count < 200, "count " + count);
    }
}

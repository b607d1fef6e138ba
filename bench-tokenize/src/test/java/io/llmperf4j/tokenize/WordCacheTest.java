package io.llmperf4j.tokenize;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class WordCacheTest {

    @Test
    void findsAWordByItsCharactersWhereverTheyStand() {
        WordCache cache = new WordCache(8);
        char[] text = "▁the▁cat▁the".toCharArray();
        cache.put(text, 0, 4, new int[] {278, 4});
        assertArrayEquals(new int[] {278, 4}, cache.get(text, 8, 12), "the same word later in the text");
        assertArrayEquals(new int[] {278, 4}, cache.get("x▁the".toCharArray(), 1, 5), "in another array");
        assertNull(cache.get(text, 4, 8), "another word");
        assertNull(cache.get(text, 0, 3), "a prefix is another word");
        cache.put(text, 8, 12, new int[] {1, 1});
        assertArrayEquals(new int[] {278, 4}, cache.get(text, 0, 4), "the first result is kept");
    }

    @Test
    void aFullCacheKeepsWhatItHasAndMissesTheRest() {
        WordCache cache = new WordCache(2);
        char[] text = "abcdef".toCharArray();
        cache.put(text, 0, 2, new int[] {1});
        cache.put(text, 2, 4, new int[] {2});
        cache.put(text, 4, 6, new int[] {3});
        assertArrayEquals(new int[] {1}, cache.get(text, 0, 2));
        assertArrayEquals(new int[] {2}, cache.get(text, 2, 4));
        assertNull(cache.get(text, 4, 6));
    }
}

package io.llmperf4j.tokenize;

import java.util.Arrays;

/**
 * The BPE result of words seen before, looked up by a range of the normalized text's characters without making a
 * String of them: counting a streamed answer looks up every word, and a String key per word (UTF-16, since a word
 * starts with {@code ▁}) and its hash were most of the counting's allocation.
 *
 * <p>Open addressing over a fixed table, never resized: once it holds {@code capacity} words it keeps them and
 * answers misses as misses. Reads take no lock; a reader that races an insert sees the slot empty (a miss, the word
 * is encoded again) or the whole entry (its fields are final). Inserts are serialized.
 */
final class WordCache {

    /** One cached word: its characters, their hash, and the packed result (token id, end offset, ...). */
    private static final class Entry {
        final char[] chars;
        final int hash;
        final int[] tokens;

        Entry(char[] chars, int hash, int[] tokens) {
            this.chars = chars;
            this.hash = hash;
            this.tokens = tokens;
        }
    }

    private final Entry[] table;
    private final int mask;
    private final int capacity;
    private int size; // guarded by this

    /** Up to {@code capacity} words, in a table of at least twice as many slots (short probe sequences). */
    WordCache(int capacity) {
        this.capacity = capacity;
        int slots = Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) << 1;
        this.table = new Entry[slots];
        this.mask = slots - 1;
    }

    /** The cached result for {@code chars[from, to)}, or null. */
    int[] get(char[] chars, int from, int to) {
        int hash = hash(chars, from, to);
        for (int i = hash & mask; ; i = (i + 1) & mask) {
            Entry e = table[i];
            if (e == null) return null;
            if (e.hash == hash && Arrays.equals(e.chars, 0, e.chars.length, chars, from, to)) return e.tokens;
        }
    }

    /** Keeps {@code tokens} for {@code chars[from, to)}, unless the cache is full or holds the word already. */
    synchronized void put(char[] chars, int from, int to, int[] tokens) {
        if (size >= capacity) return;
        int hash = hash(chars, from, to);
        int i = hash & mask;
        for (Entry e = table[i]; e != null; e = table[i]) {
            if (e.hash == hash && Arrays.equals(e.chars, 0, e.chars.length, chars, from, to)) return;
            i = (i + 1) & mask;
        }
        table[i] = new Entry(Arrays.copyOfRange(chars, from, to), hash, tokens);
        size++;
    }

    private static int hash(char[] chars, int from, int to) {
        int h = 0;
        for (int i = from; i < to; i++) h = 31 * h + chars[i];
        return h ^ (h >>> 16); // spread the high bits into the slot index
    }
}

package io.llmperf4j.tokenize;

import java.util.Arrays;

/**
 * A BPE model's merges: by pair of ids, the pair's rank and merged id (open addressing over one {@code long[]}), and
 * by rank, the pair and the merged id. Immutable once built.
 */
final class MergeTable {
    static final long NONE = -1L;
    /**
     * When every id and rank fits in 16 bits (Llama-2: 32,000 pieces, 61,249 merges): slot i is the pair (16 bits
     * each) in the high half, its rank and merged id (16 bits each) in the low half, {@link #EMPTY} when free. The
     * pair lookups of a long word land on random slots, so the table's size is their cost: this one is 1 MB for
     * Llama-2, where keys and values in two arrays of longs took 4 MB and two cache misses, most of the time of 1 MB
     * of random base64. Null otherwise.
     */
    private final long[] packed;
    private static final long EMPTY = -1L; // no pair of 16-bit ids below 0xFFFF packs to it
    /** Otherwise: slot i's key at 2i, its value (rank, merged id) at 2i + 1. Null when {@link #packed} is used. */
    private final long[] wide;
    private final int mask;
    /** Rank r's left id, right id and merged id at 3r, 3r + 1, 3r + 2. */
    private final int[] byRank;

    /**
     * @param byRank each merge in rank order as (left id, right id, merged id), nothing after; kept, not copied. A
     *               pair listed twice keeps its last rank, as in the library's map: {@link #get} never answers the
     *               earlier one.
     */
    MergeTable(int[] byRank) {
        this.byRank = byRank;
        int count = byRank.length / 3;
        int capacity = Integer.highestOneBit(Math.max(16, count * 2 - 1)) << 1;
        mask = capacity - 1;
        boolean fits = count <= 0xFFFF;
        for (int i = 0; i < byRank.length && fits; i++) fits = byRank[i] >= 0 && byRank[i] < 0xFFFF;
        if (fits) {
            packed = new long[capacity];
            Arrays.fill(packed, EMPTY);
            wide = null;
        } else {
            packed = null;
            wide = new long[2 * capacity];
            for (int i = 0; i < wide.length; i += 2) wide[i] = NONE;
        }
        for (int rank = 0; rank < count; rank++) put(byRank[3 * rank], byRank[3 * rank + 1], rank, byRank[3 * rank + 2]);
    }

    /** How many ranks there are (pairs listed twice count twice). */
    int ranks() {
        return byRank.length / 3;
    }

    static int rank(long value) {
        return (int) (value >>> 32);
    }

    static int mergedId(long value) {
        return (int) value;
    }

    int left(int rank) {
        return byRank[3 * rank];
    }

    int right(int rank) {
        return byRank[3 * rank + 1];
    }

    int merged(int rank) {
        return byRank[3 * rank + 2];
    }

    /** The (rank, merged id) of the pair {@code (a, b)}, or {@link #NONE}. */
    long get(int a, int b) {
        if (packed != null) {
            if (((a | b) & ~0xFFFF) != 0) return NONE; // an id no merge has
            int key = a << 16 | b;
            for (int i = slot(key); ; i = (i + 1) & mask) {
                long s = packed[i];
                if ((int) (s >>> 32) == key) return (long) ((int) s >>> 16) << 32 | ((int) s & 0xFFFF);
                if (s == EMPTY) return NONE;
            }
        }
        long key = key(a, b);
        for (int i = slot(key); ; i = (i + 1) & mask) {
            long k = wide[2 * i];
            if (k == key) return wide[2 * i + 1];
            if (k == NONE) return NONE;
        }
    }

    /** Whether the pair {@code (a, b)} merges at a rank above {@code rank}, or not at all. */
    boolean noneAtOrBelow(int a, int b, int rank) {
        long merge = get(a, b);
        return merge == NONE || rank(merge) > rank;
    }

    private void put(int a, int b, int rank, int mergedId) {
        if (packed != null) {
            int key = a << 16 | b;
            int i = slot(key);
            while (packed[i] != EMPTY && (int) (packed[i] >>> 32) != key) i = (i + 1) & mask;
            packed[i] = (long) key << 32 | (rank << 16 | mergedId) & 0xFFFFFFFFL;
            return;
        }
        long key = key(a, b);
        int i = slot(key);
        while (wide[2 * i] != NONE && wide[2 * i] != key) i = (i + 1) & mask;
        wide[2 * i] = key;
        wide[2 * i + 1] = ((long) rank << 32) | (mergedId & 0xFFFFFFFFL);
    }

    private static long key(int a, int b) {
        return ((long) a << 32) | (b & 0xFFFFFFFFL);
    }

    private int slot(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h >>> 32) & mask;
    }
}

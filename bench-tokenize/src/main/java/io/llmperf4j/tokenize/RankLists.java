package io.llmperf4j.tokenize;

import java.util.Arrays;

/**
 * The positions pending per merge rank while a long word is swept rank by rank ({@link BpeWord}): one list per rank,
 * of blocks of positions in one pool, and the ranks that have a list, taken in increasing order. Reused word after word
 * by one thread: no object per rank or position, and a taken list's blocks serve the next ones.
 */
final class RankLists {
    private static final int NO_BLOCK = -1;
    /** A block of positions: the next block of its list, how many positions it holds, then those; one cache line. */
    private static final int BLOCK = 16;
    private static final int NEXT = 0;
    private static final int COUNT = 1;
    private static final int FIRST = 2;
    /** Rank r's first block at 2r, its last at 2r + 1; {@link #NO_BLOCK} when the rank has no list. */
    private final int[] lists;
    private int[] blocks = new int[BLOCK * 64];
    private int blockCount;
    private int freeBlocks = NO_BLOCK; // blocks of taken lists, linked like a list
    /**
     * The ranks that have a list, one bit each, and the word of bits where the lowest may be: ranks are taken in
     * increasing order and added above the one taken only (a heap of them was a fifth of the time of 1 MB of base64).
     */
    private final long[] ranks;
    private int lowestWord;
    private int[] taken = new int[256];
    /** Set while lists may be pending: a word given up half-way (an error) leaves them to be cleared. */
    private boolean inUse;

    RankLists(int rankCount) {
        lists = new int[2 * rankCount];
        Arrays.fill(lists, NO_BLOCK);
        ranks = new long[(rankCount + 63) / 64];
    }

    /** Starts a word: no list is pending. */
    void start() {
        if (inUse) { // the last word ended half-way
            Arrays.fill(lists, NO_BLOCK);
            Arrays.fill(ranks, 0);
        }
        lowestWord = 0;
        blockCount = 0;
        freeBlocks = NO_BLOCK;
        inUse = true;
    }

    /** Ends a word whose lists were all taken; gives back arrays that grew beyond {@code keep} positions. */
    void finish(int keep) {
        inUse = false;
        if (blocks.length > 2 * keep) blocks = new int[BLOCK * 64];
        if (taken.length > keep) taken = new int[256];
    }

    /** Appends {@code pos} to the list of {@code rank}: a rank above the last one taken, if any. */
    void add(int rank, int pos) {
        int last = lists[2 * rank + 1];
        if (last == NO_BLOCK || blocks[BLOCK * last + COUNT] == BLOCK - FIRST) {
            int block = newBlock();
            if (last == NO_BLOCK) {
                lists[2 * rank] = block;
                ranks[rank >>> 6] |= 1L << rank;
            } else {
                blocks[BLOCK * last + NEXT] = block;
            }
            lists[2 * rank + 1] = block;
            last = block;
        }
        int at = BLOCK * last;
        blocks[at + FIRST + blocks[at + COUNT]++] = pos;
    }

    private int newBlock() {
        int block = freeBlocks;
        if (block != NO_BLOCK) {
            freeBlocks = blocks[BLOCK * block + NEXT];
        } else {
            if (BLOCK * blockCount == blocks.length) blocks = Arrays.copyOf(blocks, 2 * blocks.length);
            block = blockCount++;
        }
        blocks[BLOCK * block + NEXT] = NO_BLOCK;
        blocks[BLOCK * block + COUNT] = 0;
        return block;
    }

    /** The lowest rank that has a list, or -1; that rank has none from now on (take it). */
    int lowestRank() {
        while (lowestWord < ranks.length && ranks[lowestWord] == 0) lowestWord++;
        if (lowestWord == ranks.length) return -1;
        long bits = ranks[lowestWord];
        ranks[lowestWord] = bits & (bits - 1);
        return 64 * lowestWord + Long.numberOfTrailingZeros(bits);
    }

    /**
     * Takes the list of {@code rank} (one {@link #lowestRank} gave) into {@link #taken()}: its positions in the order
     * they came, or in increasing order when {@code ascending}. Returns how many there are.
     */
    int take(int rank, boolean ascending) {
        int first = lists[2 * rank];
        int count = 0;
        boolean inOrder = true;
        int last = NO_BLOCK;
        for (int block = first; block != NO_BLOCK; block = blocks[BLOCK * block + NEXT]) {
            int at = BLOCK * block;
            int n = blocks[at + COUNT];
            if (count + n > taken.length) taken = Arrays.copyOf(taken, Math.max(2 * taken.length, count + n));
            System.arraycopy(blocks, at + FIRST, taken, count, n);
            count += n;
            last = block;
        }
        if (last != NO_BLOCK) { // the list's blocks serve the next adds
            blocks[BLOCK * last + NEXT] = freeBlocks;
            freeBlocks = first;
        }
        lists[2 * rank] = NO_BLOCK;
        lists[2 * rank + 1] = NO_BLOCK;
        if (ascending) {
            for (int i = 1; i < count && inOrder; i++) inOrder = taken[i - 1] < taken[i];
            if (!inOrder) Arrays.sort(taken, 0, count);
        }
        return count;
    }

    /** The positions the last {@link #take} took; valid until the next take. */
    int[] taken() {
        return taken;
    }

    /** Moves every pending position into {@code heap} as (rank, position) entries; no list is left. */
    void moveAllTo(LongHeap heap) {
        int rank;
        while ((rank = lowestRank()) >= 0) {
            int count = take(rank, false);
            for (int i = 0; i < count; i++) heap.push(rank, taken[i]);
        }
    }
}

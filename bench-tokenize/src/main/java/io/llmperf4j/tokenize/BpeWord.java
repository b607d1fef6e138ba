package io.llmperf4j.tokenize;

import java.util.Arrays;

/**
 * One word's symbols, merged in place (the library's {@code Word::merge_all}): the
 * adjacent pair of lowest merge rank first, the leftmost of equal ranks. One per thread and model, reused word after
 * word ({@link LlamaBpeModel#encodeWord}): counting a degenerate answer (one word of a megabyte) made some 16 MB of
 * arrays per call, each straight into the old generation of the launcher's 4 MB young one, and the collector's pauses
 * were as long as the counting. Arrays grown beyond {@link #KEPT_SYMBOLS} are given back after the word.
 */
final class BpeWord {
    /** From this many symbols on, the word is swept rank by rank ({@link #sweep}); below, the heap is as fast. */
    static final int SWEEP_MIN_SYMBOLS = 256;
    /**
     * The most symbols whose arrays stay for the next word: a word of 2 MB of ASCII; a 1 MB one keeps 8 MB here and
     * at most some 12 MB in the lists.
     */
    static final int KEPT_SYMBOLS = 1 << 21;
    private static final int INNER = -1;

    private final MergeTable merges;
    /**
     * By symbol position (each piece of the word as it started): the piece's id at the first position of each
     * symbol as merged so far; at the last position of a symbol of two or more, {@code -2 - first}, the way back to
     * its first; {@link #INNER} in between. One small array, so a symbol and its neighbours (what a merge reads and
     * writes) share a cache line: a long word's merges land anywhere in it, and with an array per field they were a
     * cache miss each. The next symbol is the next position holding an id (pieces are short), the previous one is
     * the first of the symbol ending just before.
     */
    private int[] ids = new int[64];
    /** By position: the index in the text just past the piece there at the start. */
    private int[] ends = new int[64];
    private int size;
    private final LongHeap heap = new LongHeap(64);
    private RankLists lists; // made for the first long word

    BpeWord(MergeTable merges) {
        this.merges = merges;
    }

    /** Starts a new word of about {@code capacity} symbols. */
    void start(int capacity) {
        size = 0;
        if (ids.length < capacity) {
            ids = new int[capacity];
            ends = new int[capacity];
        }
    }

    void add(int id, int end) {
        if (size == ids.length) {
            ids = Arrays.copyOf(ids, 2 * size);
            ends = Arrays.copyOf(ends, 2 * size);
        }
        ids[size] = id;
        ends[size] = end;
        size++;
    }

    /**
     * Merges the whole word. Heap entries are (rank, position of the left symbol); an entry whose pair has changed
     * since it was queued is skipped, as in the library (such an entry never becomes valid again: the pieces at a
     * position only grow). Long words are swept rank by rank, which takes the same merges in the same order.
     */
    void mergeAll() {
        heap.clear();
        if (size >= SWEEP_MIN_SYMBOLS) {
            if (sweep()) return;
        } else {
            for (int i = 0; i + 1 < size; i++) {
                long merge = merges.get(id(i), id(i + 1));
                if (merge != MergeTable.NONE) heap.push(MergeTable.rank(merge), i);
            }
        }
        while (!heap.isEmpty()) {
            long top = heap.pop();
            int rank = LongHeap.rank(top);
            int pos = LongHeap.position(top);
            if (!isPair(pos, rank)) continue;
            merge(pos, merges.merged(rank));
            int left = prev(pos);
            if (left >= 0) {
                long m = merges.get(id(left), id(pos));
                if (m != MergeTable.NONE) heap.push(MergeTable.rank(m), left);
            }
            int after = next(pos);
            if (after >= 0) {
                long m = merges.get(id(pos), id(after));
                if (m != MergeTable.NONE) heap.push(MergeTable.rank(m), pos);
            }
        }
    }

    /**
     * The heap's order without a heap over every pair, for long words: a degenerate answer (a model repeating
     * characters) is one word of up to megabytes, and the heap's pops over that many pairs made 1 MB of "x" take 0.37
     * s, 54 times as long as 1 MB of spaced words (most of those come from the word cache). A merge of rank r creates
     * pairs of other ranks only (the merged piece is longer than either part), and when those ranks are all higher, as
     * for nearly every merge of a trained table (a piece exists before pieces made of it), the heap pops every pending
     * entry of rank r, left to right, before any of a higher rank. So the pending positions are kept in one list per
     * rank ({@link RankLists}), and the ranks are taken in increasing order. The positions of a rank whose pair is two
     * different pieces never overlap, so their order does not matter; those of a pair of one piece twice ({@code x
     * x}) are taken left to right. A merge that creates a pair of no higher rank than the one being swept hands every
     * pending entry to the heap, which goes on exactly as if it had run from the start.
     *
     * @return true when the word is merged; false when the heap holds what is pending
     */
    private boolean sweep() {
        RankLists lists = lists();
        lists.start();
        for (int i = 0; i + 1 < size; i++) {
            long merge = merges.get(id(i), id(i + 1));
            if (merge != MergeTable.NONE) lists.add(MergeTable.rank(merge), i);
        }
        int rank;
        while ((rank = lists.lowestRank()) >= 0) {
            int mergedId = merges.merged(rank);
            int count = lists.take(rank, merges.left(rank) == merges.right(rank));
            int[] positions = lists.taken();
            for (int j = 0; j < count; j++) {
                int pos = positions[j];
                if (!isPair(pos, rank)) continue;
                merge(pos, mergedId);
                int left = prev(pos);
                int after = next(pos);
                long leftMerge = left < 0 ? MergeTable.NONE : merges.get(id(left), mergedId);
                long rightMerge = after < 0 ? MergeTable.NONE : merges.get(mergedId, id(after));
                // not higher (equal only with an empty piece in the table): the heap's turn
                if ((leftMerge != MergeTable.NONE && MergeTable.rank(leftMerge) <= rank)
                        || (rightMerge != MergeTable.NONE && MergeTable.rank(rightMerge) <= rank)) {
                    for (int k = j + 1; k < count; k++) heap.push(rank, positions[k]);
                    lists.moveAllTo(heap);
                    if (leftMerge != MergeTable.NONE) heap.push(MergeTable.rank(leftMerge), left);
                    if (rightMerge != MergeTable.NONE) heap.push(MergeTable.rank(rightMerge), pos);
                    lists.finish(KEPT_SYMBOLS);
                    return false;
                }
                if (leftMerge != MergeTable.NONE) lists.add(MergeTable.rank(leftMerge), left);
                if (rightMerge != MergeTable.NONE) lists.add(MergeTable.rank(rightMerge), pos);
            }
        }
        lists.finish(KEPT_SYMBOLS);
        return true;
    }

    private RankLists lists() {
        if (lists == null) lists = new RankLists(merges.ranks());
        return lists;
    }

    /** Whether the symbols at {@code pos} and after it are still the pair of {@code rank}. */
    private boolean isPair(int pos, int rank) {
        if (ids[pos] != merges.left(rank)) return false; // also when pos is no symbol's first position any more
        int right = next(pos);
        return right >= 0 && ids[right] == merges.right(rank);
    }

    /** Joins the symbol at {@code pos} and the one after it into {@code mergedId}. */
    private void merge(int pos, int mergedId) {
        int right = next(pos);
        int afterRight = next(right);
        int last = (afterRight < 0 ? size : afterRight) - 1;
        ids[pos] = mergedId;
        ids[right] = INNER;
        ids[last] = -2 - pos; // (the old last of pos's symbol, if any, stays negative: inner now)
    }

    private int id(int pos) {
        return ids[pos];
    }

    /** The first position of the symbol after the one at {@code pos}, or -1. */
    private int next(int pos) {
        int i = pos + 1;
        while (i < size && ids[i] < 0) i++;
        return i < size ? i : -1;
    }

    /** The first position of the symbol before the one at {@code pos}, or -1. */
    private int prev(int pos) {
        if (pos == 0) return -1;
        int before = ids[pos - 1];
        return before >= 0 ? pos - 1 : -2 - before;
    }

    /** Gives the merged word's tokens to {@code out}, then lets go of arrays grown beyond {@link #KEPT_SYMBOLS}. */
    void emit(LlamaBpeModel.TokenSink out) {
        for (int i = 0; i < size; ) {
            int next = i + 1;
            while (next < size && ids[next] < 0) next++;
            out.token(ids[i], ends[next - 1]);
            i = next;
        }
        if (ids.length > KEPT_SYMBOLS) {
            ids = new int[64];
            ends = new int[64];
        }
        heap.clear(KEPT_SYMBOLS);
    }
}

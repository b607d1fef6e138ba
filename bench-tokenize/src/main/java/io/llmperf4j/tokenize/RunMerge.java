package io.llmperf4j.tokenize;

/**
 * The BPE of a long word made of a few runs of one repeated piece (a model stuck on one character: a megabyte of
 * {@code x} is two runs, {@code ▁} and {@code x}), merged as runs rather than symbol by symbol: the merges of one rank
 * are taken all at once, in position order, and the word stays a handful of (piece, count) runs, so the work is the
 * number of ranks taken times the runs, then one pass to emit the tokens (1 MB of {@code x}: 262,146 tokens).
 *
 * <p>Exactly the library's order, which merges the pair of lowest rank, the leftmost first: within a run of
 * {@code A A A ...} that pairs the symbols from the left, the last one left over when the count is odd; a pair
 * {@code A B} of two pieces never overlaps another, so every boundary of a run of A followed by one of B merges. That
 * the whole rank goes before any other holds when each merge creates pairs of higher ranks only; they are checked as
 * the merges are made (with the neighbours they have at that moment), and when one is not higher, or the runs grow too
 * many, {@link #merge} gives up and the caller merges the word symbol by symbol, as if this had never run.
 *
 * <p>Takes words whose characters are each a piece of one UTF-16 unit (no byte fallback, no surrogate pairs), so a
 * piece's length in characters is the number of characters it was merged from. One per thread (see {@link BpeWord}).
 */
final class RunMerge {
    /** Beyond this many runs the word is merged symbol by symbol: a rank's step costs one pass over the runs. */
    static final int MAX_RUNS = 64;
    private static final int NO_ID = -1;

    private final MergeTable merges;
    private int[] ids = new int[MAX_RUNS];
    private int[] counts = new int[MAX_RUNS];
    /** Characters per piece of the run. */
    private int[] lengths = new int[MAX_RUNS];
    private int size;
    // the next step's runs, swapped with the above after each step
    private int[] nextIds = new int[MAX_RUNS];
    private int[] nextCounts = new int[MAX_RUNS];
    private int[] nextLengths = new int[MAX_RUNS];
    private int nextSize;

    RunMerge(MergeTable merges) {
        this.merges = merges;
    }

    /**
     * Merges the word {@code chars[from, to)} whose characters' pieces {@code charIds} gives ({@code -1}: none) and
     * emits its tokens with their ends; false, having emitted nothing, when the word is not for this (a character
     * without a piece of its own, a surrogate, too many runs) or a merge broke the rank-at-once order.
     */
    boolean merge(char[] chars, int from, int to, int[] charIds, LlamaBpeModel.TokenSink out) {
        if (!load(chars, from, to, charIds)) return false;
        int lastRank = -1;
        while (true) {
            long lowest = lowestPair();
            if (lowest == MergeTable.NONE) break;
            int rank = MergeTable.rank(lowest);
            if (rank <= lastRank || !step(rank)) return false; // (a lower rank cannot come after a step; kept safe)
            lastRank = rank;
        }
        int end = from;
        for (int r = 0; r < size; r++) {
            int id = ids[r];
            int length = lengths[r];
            for (int k = counts[r]; k > 0; k--) {
                end += length;
                out.token(id, end);
            }
        }
        return true;
    }

    private boolean load(char[] chars, int from, int to, int[] charIds) {
        nextSize = 0;
        for (int i = from; i < to; i++) {
            char c = chars[i];
            int id = Character.isSurrogate(c) ? NO_ID : charIds[c];
            if (id == NO_ID || !append(id, 1, 1)) return false;
        }
        swap();
        return true;
    }

    /** The (rank, merged id) of the lowest-ranked pair in the word, inside a run or across two; or none. */
    private long lowestPair() {
        long lowest = MergeTable.NONE;
        for (int r = 0; r < size; r++) {
            if (counts[r] > 1) lowest = lower(lowest, merges.get(ids[r], ids[r]));
            if (r + 1 < size) lowest = lower(lowest, merges.get(ids[r], ids[r + 1]));
        }
        return lowest;
    }

    private static long lower(long a, long b) {
        if (a == MergeTable.NONE) return b;
        return b == MergeTable.NONE || a < b ? a : b; // ranks differ, and a rank is the value's high bits
    }

    /** Takes every merge of {@code rank}, left to right; false when one of them makes a pair of no higher rank. */
    private boolean step(int rank) {
        int a = merges.left(rank);
        int b = merges.right(rank);
        int merged = merges.merged(rank);
        nextSize = 0;
        boolean firstTaken = false; // the run's first piece went into the merge before
        for (int r = 0; r < size; r++) {
            int id = ids[r];
            int count = counts[r] - (firstTaken ? 1 : 0);
            firstTaken = false;
            int length = lengths[r];
            int right = r + 1 < size ? ids[r + 1] : NO_ID; // the next run's first piece, not merged yet
            if (a == b && id == a && count > 1) {
                // pairs from the left: count / 2 merged pieces, then one A when the count is odd; the pairs they make
                // are (left, M), (M, M), (M, A) and (M, right) when none is left over
                if (!higher(last(), merged, rank)
                        || (count >= 4 && !higher(merged, merged, rank))
                        || (count >= 3 && !higher(merged, a, rank))
                        || (count % 2 == 0 && !higher(merged, right, rank))
                        || !append(merged, count / 2, 2 * length)
                        || (count % 2 == 1 && !append(a, 1, length))) {
                    return false;
                }
            } else if (a != b && id == a && right == b) {
                // this run's last piece and the next one's first: the merged piece sits between what is left of them
                if (count > 1 && !append(a, count - 1, length)) return false;
                int after = counts[r + 1] > 1 ? b : r + 2 < size ? ids[r + 2] : NO_ID;
                if (!higher(last(), merged, rank) || !higher(merged, after, rank)
                        || !append(merged, 1, length + lengths[r + 1])) {
                    return false;
                }
                firstTaken = true;
            } else if (count > 0 && !append(id, count, length)) {
                return false;
            }
        }
        swap();
        return true;
    }

    /** The last piece of the next step's runs so far (the final left neighbour of what comes), or none. */
    private int last() {
        return nextSize == 0 ? NO_ID : nextIds[nextSize - 1];
    }

    /** Whether the pair {@code (left, right)} is absent (either missing) or of a rank above {@code rank}. */
    private boolean higher(int left, int right, int rank) {
        return left == NO_ID || right == NO_ID || merges.noneAtOrBelow(left, right, rank);
    }

    /** Appends to the next step's runs, joining a run of the same piece; false when they would be too many. */
    private boolean append(int id, int count, int length) {
        if (nextSize > 0 && nextIds[nextSize - 1] == id) {
            nextCounts[nextSize - 1] += count; // the same piece: the same characters, so the same length
            return true;
        }
        if (nextSize == MAX_RUNS) return false;
        nextIds[nextSize] = id;
        nextCounts[nextSize] = count;
        nextLengths[nextSize] = length;
        nextSize++;
        return true;
    }

    private void swap() {
        int[] t = ids;
        ids = nextIds;
        nextIds = t;
        t = counts;
        counts = nextCounts;
        nextCounts = t;
        t = lengths;
        lengths = nextLengths;
        nextLengths = t;
        size = nextSize;
        nextSize = 0;
    }
}

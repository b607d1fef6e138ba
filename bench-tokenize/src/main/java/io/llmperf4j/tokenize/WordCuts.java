package io.llmperf4j.tokenize;

/**
 * Where a word can be cut into parts whose BPE is the word's: between two adjacent characters that no merge can ever
 * join. A merge joins two symbols into a piece of the vocabulary whose text is theirs end to end, so once a
 * character {@code a} is followed by {@code b}, no merge crosses between them unless some merged piece holds
 * {@code ab}; and the byte tokens of a character without a piece of its own join nothing when no merge has a byte
 * token in it. Merges on either side of such a cut never meet, so the heap's order interleaving them does not
 * matter: the parts encoded one by one give the word's tokens.
 *
 * <p>That turns a long word of random text (random base64: Llama-2's merged pieces hold only 1,332 of the 4,096
 * pairs of base64 characters, so two of three places are cuts) into parts of a character or a few, merged in a
 * small workspace, where the whole word's sweep looked up every adjacent pair and queued some 500,000 positions in
 * per-rank lists over a megabyte of symbols (JFR, 1 MB of base64: {@code MergeTable.get} 46 % of the samples, the
 * lists' new blocks 18 %). Immutable.
 */
final class WordCuts {
    private static final int NO_ID = -1;
    private static final int EMPTY = 0; // the key of two NULs, which no text counted here holds
    /** The pairs of adjacent characters (first << 16 | second) inside any merged piece: open addressing. */
    private final int[] pairs;
    private final int mask;
    private final int shift;
    /** The same for two ASCII characters, one bit each (a << 7 | b), tested without a probe. */
    private final long[] asciiPairs = new long[128 * 128 / 64];
    /** Whether a character without a piece (its UTF-8 byte tokens) can be merged with anything. */
    private final boolean byteTokensMerge;

    /**
     * @param pieces  each id's piece text ({@code null} for an unused id)
     * @param byteIds the id of each byte's token
     */
    WordCuts(String[] pieces, MergeTable merges, int[] byteIds) {
        boolean[] isByte = new boolean[pieces.length];
        for (int id : byteIds) isByte[id] = true;
        boolean bytesMerge = false;
        int count = 0;
        int[] found = new int[1024];
        for (int rank = 0; rank < merges.ranks(); rank++) {
            bytesMerge |= isByte[merges.left(rank)] || isByte[merges.right(rank)] || isByte[merges.merged(rank)];
            String piece = pieces[merges.merged(rank)];
            for (int i = 1; i < piece.length(); i++) {
                if (count == found.length) found = java.util.Arrays.copyOf(found, 2 * count);
                found[count++] = piece.charAt(i - 1) << 16 | piece.charAt(i);
            }
        }
        byteTokensMerge = bytesMerge;
        java.util.Arrays.sort(found, 0, count);
        int distinct = 0;
        for (int i = 0; i < count; i++) {
            if (i == 0 || found[i] != found[i - 1]) found[distinct++] = found[i];
        }
        int slots = Integer.highestOneBit(Math.max(16, distinct) * 2 - 1) << 1; // at least twice the pairs
        pairs = new int[slots];
        mask = slots - 1;
        shift = 32 - Integer.numberOfTrailingZeros(slots);
        for (int i = 0; i < distinct; i++) add(found[i]);
    }

    private void add(int pair) {
        if (pair == EMPTY) return;
        int a = pair >>> 16;
        int b = pair & 0xFFFF;
        if (a < 128 && b < 128) asciiPairs[(a << 7 | b) >>> 6] |= 1L << (a << 7 | b);
        int i = slot(pair);
        while (pairs[i] != EMPTY && pairs[i] != pair) i = (i + 1) & mask;
        pairs[i] = pair;
    }

    private boolean inAPiece(int pair) {
        for (int i = slot(pair); ; i = (i + 1) & mask) {
            int p = pairs[i];
            if (p == pair) return true;
            if (p == EMPTY) return false;
        }
    }

    private int slot(int pair) {
        return (pair * 0x9E3779B9) >>> shift;
    }

    /**
     * Whether no merge can join the character {@code a} and the character {@code b} after it, whose pieces
     * {@code charIds} gives. Never at a surrogate (a character of two units is taken whole, or as its bytes).
     */
    boolean between(char a, char b, int[] charIds) {
        if (Character.isSurrogate(a) || Character.isSurrogate(b)) return false;
        boolean aHasPiece = charIds[a] != NO_ID;
        boolean bHasPiece = charIds[b] != NO_ID;
        if (!aHasPiece || !bHasPiece) return !byteTokensMerge;
        if ((a | b) < 128) return (asciiPairs[(a << 7 | b) >>> 6] & 1L << (a << 7 | b)) == 0;
        return !inAPiece(a << 16 | b);
    }
}

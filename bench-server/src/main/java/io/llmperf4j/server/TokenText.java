package io.llmperf4j.server;

/**
 * The deterministic generated text: one word per token, token-exact for the Llama-2 tokenizer.
 *
 * <p>Token {@code i} of a response is {@code WORDS[h(seed, i)]}, where {@code h} is SplitMix64's finalizer
 * of {@code seed + (i + 1) * 0x9E3779B97F4A7C15} taken to 8 bits. Token 0 has no leading space ("the"), every
 * later token has one (" of"). Each of the 256 words is a single Llama-2 SentencePiece token when preceded
 * by a space or at the start of a text, and no two adjacent words merge (all 65,536 ordered pairs were
 * checked against the Llama-2 vocabulary and merges), so a text of n tokens encodes to exactly n Llama ids,
 * n + 1 with BOS. The words are plain ASCII lowercase letters, so the text needs no JSON escaping.
 *
 * <p>The seed is {@link #seedOf(String)} of the request's prompt text, so the same prompt always yields
 * the same text, independent of arrival order, and a shorter completion is a prefix of a longer one.
 */
final class TokenText {

    /** 256 common English words, each one Llama-2 token as "▁word"; a power of two so 8 hash bits pick one. */
    private static final String[] WORDS = (
            "the of and to in is that for it with as was on be at by this had not are but from or have an they "
            + "which one you were all we when there can more time would about so into than them only other new "
            + "some could these two may then do first any my now like over me even most made after also did many "
            + "before must through back where much your way well down should because each just those people how "
            + "too little good very make world still own see work long here both life being under never day same "
            + "another know while last might great old year off come since go came right used take three states "
            + "himself few house use during without again place around however home small found thought went say "
            + "part once general high upon school every does got left number course war until always away "
            + "something fact though water less public put think almost hand enough far took head yet government "
            + "system better set told nothing night end why called find going look asked later knew point next "
            + "city give group toward young let room side social given present several order national possible "
            + "rather second face per among form important often things looked early white case become large big "
            + "need four within felt along children saw best church ever least power development light thing "
            + "seemed family interest want members mind country area others done turned although open problem "
            + "certain kind began law sense means different whole name word").split(" ");

    /** The same words with the leading space every token after the first carries. */
    private static final String[] SPACED_WORDS = new String[WORDS.length];

    static {
        if (WORDS.length != 256) throw new AssertionError("word list must hold 256 words, has " + WORDS.length);
        for (int i = 0; i < WORDS.length; i++) SPACED_WORDS[i] = " " + WORDS[i];
    }

    private TokenText() {
    }

    /** 64-bit FNV-1a over the UTF-16 chars of the prompt text. */
    static long seedOf(String promptText) {
        return Hashing.fnv(promptText);
    }

    /** Token {@code index} (0-based) of the text for {@code seed}, with its leading space when index > 0. */
    static String token(long seed, int index) {
        long z = seed + (index + 1L) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        int word = (int) ((z ^ (z >>> 31)) >>> 56);
        return index == 0 ? WORDS[word] : SPACED_WORDS[word];
    }

    /** Appends tokens {@code from} (inclusive) to {@code to} (exclusive). */
    static StringBuilder append(StringBuilder out, long seed, int from, int to) {
        for (int i = from; i < to; i++) out.append(token(seed, i));
        return out;
    }

    /** Tokens {@code from} (inclusive) to {@code to} (exclusive) as one string. */
    static String text(long seed, int from, int to) {
        return append(new StringBuilder((to - from) * 7), seed, from, to).toString();
    }

    /** The word list, for tests. */
    static String[] words() {
        return WORDS.clone();
    }
}

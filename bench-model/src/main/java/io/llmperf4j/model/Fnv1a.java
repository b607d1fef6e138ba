package io.llmperf4j.model;

/**
 * 64-bit FNV-1a over a text's UTF-16 chars: a fast hash, stable across JVMs and runs, for deterministic seeds and for
 * telling texts apart (a collision among millions of prompts is negligible). Not a cryptographic hash.
 */
public final class Fnv1a {
    /** FNV-1a's 64-bit offset basis, the hash of nothing. */
    public static final long OFFSET = 0xcbf29ce484222325L;
    /** FNV-1a's 64-bit prime. */
    public static final long PRIME = 0x100000001b3L;

    private Fnv1a() {
    }

    /** The hash of {@code text}'s chars. */
    public static long hash(CharSequence text) {
        long hash = OFFSET;
        for (int i = 0; i < text.length(); i++) {
            hash ^= text.charAt(i);
            hash *= PRIME;
        }
        return hash;
    }
}

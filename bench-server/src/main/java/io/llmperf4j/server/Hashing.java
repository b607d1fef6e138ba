package io.llmperf4j.server;

import io.llmperf4j.model.Fnv1a;
import io.netty.buffer.ByteBuf;

/** The simulator's deterministic randomness: SplitMix64 mixing and FNV-1a hashing, stable across JVMs. */
final class Hashing {

    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private Hashing() {
    }

    /** SplitMix64's output function of {@code seed + (stream + 1) * golden gamma}. */
    static long mix(long seed, long stream) {
        long z = seed + (stream + 1) * GOLDEN_GAMMA;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** A double uniform in [0, 1) from the top 53 bits of {@code bits}. */
    static double unit(long bits) {
        return (bits >>> 11) * 0x1.0p-53;
    }

    /** 64-bit FNV-1a of {@code text}'s UTF-16 chars ({@link TokenText#seedOf} is this). */
    static long fnv(String text) {
        return Fnv1a.hash(text);
    }

    /** 64-bit FNV-1a of {@code path}'s chars, a 0 byte, then the readable bytes of {@code body}. */
    static long fnv(String path, ByteBuf body) {
        long hash = fnv(path);
        hash *= Fnv1a.PRIME; // the 0 separator
        for (int i = body.readerIndex(), end = body.writerIndex(); i < end; i++) {
            hash ^= body.getByte(i) & 0xff;
            hash *= Fnv1a.PRIME;
        }
        return hash;
    }
}

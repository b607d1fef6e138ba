package io.llmperf4j.tokenize.prompt;

import java.math.BigInteger;
import java.util.List;

/**
 * CPython's {@code random.Random}, bit for bit: MT19937 seeded like {@code random.seed(int)}, and the same
 * {@code random()}, {@code gauss()}, {@code getrandbits()}, {@code _randbelow()} and {@code shuffle()} algorithms
 * (CPython 3.8 to 3.13), so llmperf's workloads can be reproduced exactly.
 *
 * <p>{@code gauss} uses {@link StrictMath}, whose results are the same on every JVM and platform; like CPython's libm
 * it is within one ulp of the true value, so a draw could only differ from CPython's if {@code int()} truncation sat
 * exactly on that ulp. Not thread-safe: one instance per workload.
 */
public final class PythonRandom {
    private static final int N = 624;
    private static final int M = 397;
    private static final int MATRIX_A = 0x9908b0df;
    private static final int UPPER_MASK = 0x80000000;
    private static final int LOWER_MASK = 0x7fffffff;
    private static final double TWO_PI = 2.0 * Math.PI;

    private final int[] mt = new int[N];
    private int mti;
    private boolean hasGaussNext;
    private double gaussNext;

    public PythonRandom(long seed) {
        seed(seed);
    }

    /** {@code random.seed(seed)} for an int: MT's init_by_array over the 32-bit words of {@code abs(seed)}. */
    public void seed(long seed) {
        seed(BigInteger.valueOf(seed));
    }

    public void seed(BigInteger seed) {
        BigInteger n = seed.abs();
        int words = Math.max(1, (n.bitLength() + 31) / 32); // seed 0 still uses one key word
        int[] key = new int[words];
        for (int i = 0; i < words; i++) key[i] = n.shiftRight(32 * i).intValue(); // least significant word first
        initByArray(key);
        hasGaussNext = false;
    }

    /** {@code random.random()}: a double in [0, 1) with 53 random bits from two 32-bit draws. */
    public double random() {
        long a = Integer.toUnsignedLong(nextInt32()) >>> 5; // 27 bits
        long b = Integer.toUnsignedLong(nextInt32()) >>> 6; // 26 bits
        return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
    }

    /**
     * {@code random.gauss(mu, sigma)}: Box-Muller producing two normals per pair of {@code random()} draws; the
     * second is kept for the next call (and dropped by {@link #seed}).
     */
    public double gauss(double mu, double sigma) {
        double z;
        if (hasGaussNext) {
            z = gaussNext;
            hasGaussNext = false;
        } else {
            double x2pi = random() * TWO_PI;
            double g2rad = StrictMath.sqrt(-2.0 * StrictMath.log(1.0 - random()));
            z = StrictMath.cos(x2pi) * g2rad;
            gaussNext = StrictMath.sin(x2pi) * g2rad;
            hasGaussNext = true;
        }
        return mu + z * sigma;
    }

    /** {@code random.getrandbits(k)} for {@code 0 <= k <= 63}: whole 32-bit words, the last one's top bits. */
    public long getrandbits(int k) {
        if (k < 0 || k > 63) throw new IllegalArgumentException("k (" + k + ") must be within 0..63");
        if (k <= 32) return k == 0 ? 0 : Integer.toUnsignedLong(nextInt32()) >>> (32 - k);
        long low = Integer.toUnsignedLong(nextInt32());
        long high = Integer.toUnsignedLong(nextInt32()) >>> (64 - k);
        return high << 32 | low; // CPython fills words least significant first
    }

    /** {@code random._randbelow(n)}: uniform in [0, n) by rejection over {@code n.bit_length()} random bits. */
    public int randbelow(int n) {
        if (n <= 0) throw new IllegalArgumentException("n (" + n + ") must be > 0");
        int k = 32 - Integer.numberOfLeadingZeros(n);
        long r = getrandbits(k);
        while (r >= n) r = getrandbits(k);
        return (int) r;
    }

    /** {@code random.shuffle(list)} in place: Fisher-Yates from the end. */
    public <T> void shuffle(List<T> list) {
        for (int i = list.size() - 1; i > 0; i--) {
            int j = randbelow(i + 1);
            list.set(i, list.set(j, list.get(i)));
        }
    }

    /** MT19937 genrand_uint32, as a raw int (use {@link Integer#toUnsignedLong} for its value). */
    int nextInt32() {
        if (mti >= N) generate();
        int y = mt[mti++];
        y ^= y >>> 11;
        y ^= (y << 7) & 0x9d2c5680;
        y ^= (y << 15) & 0xefc60000;
        y ^= y >>> 18;
        return y;
    }

    private void generate() {
        int kk = 0;
        for (; kk < N - M; kk++) {
            int y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
            mt[kk] = mt[kk + M] ^ (y >>> 1) ^ ((y & 1) != 0 ? MATRIX_A : 0);
        }
        for (; kk < N - 1; kk++) {
            int y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
            mt[kk] = mt[kk + (M - N)] ^ (y >>> 1) ^ ((y & 1) != 0 ? MATRIX_A : 0);
        }
        int y = (mt[N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK);
        mt[N - 1] = mt[M - 1] ^ (y >>> 1) ^ ((y & 1) != 0 ? MATRIX_A : 0);
        mti = 0;
    }

    private void initGenrand(int s) {
        mt[0] = s;
        for (mti = 1; mti < N; mti++) {
            mt[mti] = 1812433253 * (mt[mti - 1] ^ (mt[mti - 1] >>> 30)) + mti; // int overflow = mod 2^32
        }
    }

    private void initByArray(int[] key) {
        initGenrand(19650218);
        int i = 1;
        int j = 0;
        for (int k = Math.max(N, key.length); k > 0; k--) {
            mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >>> 30)) * 1664525)) + key[j] + j;
            i++;
            j++;
            if (i >= N) {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if (j >= key.length) j = 0;
        }
        for (int k = N - 1; k > 0; k--) {
            mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >>> 30)) * 1566083941)) - i;
            i++;
            if (i >= N) {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x80000000; // MSB is 1, assuring a non-zero initial array
        mti = N;
    }
}

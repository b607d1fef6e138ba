package io.llmperf4j.server;

/**
 * Simulated EOS: some responses end with {@code finish_reason: "stop"} ({@code /v1/messages}: {@code stop_reason:
 * "end_turn"}) before {@code max_tokens}. Default {@link #none()}: every response runs to its limit.
 *
 * <p>For a request whose limit is {@code max} tokens, let {@code lo = max(1, min_tokens, reasoningTokens + 1)}
 * (the reasoning term only when reasoning applies, so an early stop never cuts the reasoning). The request stops
 * early when {@code unit(mix(seed ^ promptSeed, 0)) < stopProbability}; it then generates
 * {@code max(naturalLength, lo)} tokens when {@code naturalLength > 0}, else a length drawn uniformly from
 * {@code [lo, max - 1]}; a length {@code >= max} means no early stop. {@code promptSeed} is the prompt text's
 * 64-bit FNV-1a (the seed of the generated text), so the same prompt always stops at the same place, and the
 * stopped text is a prefix of the full one. A request with {@code "ignore_eos": true} never stops early (vLLM's
 * rule); {@code min_tokens} delays the stop as vLLM's does. {@code usage.completion_tokens} counts the tokens
 * actually sent (no EOS token).
 *
 * @param stopProbability share of requests that stop early, in [0, 1]
 * @param naturalLength   the length of an early-stopping response, or 0 for uniform in [lo, max - 1]
 * @param seed            mixed into every per-request draw
 */
public record EarlyStop(double stopProbability, int naturalLength, long seed) {

    private static final EarlyStop NONE = new EarlyStop(0, 0, 0);

    public EarlyStop {
        if (!(stopProbability >= 0 && stopProbability <= 1)) {
            throw new IllegalArgumentException("stopProbability (" + stopProbability + ") must be within [0, 1]");
        }
        if (naturalLength < 0) throw new IllegalArgumentException("naturalLength (" + naturalLength + ") must be >= 0");
    }

    /** Never stops early (the default). */
    public static EarlyStop none() {
        return NONE;
    }

    /** A share {@code stopProbability} of requests stop at a uniformly drawn length below their limit. */
    public static EarlyStop probability(double stopProbability, long seed) {
        return new EarlyStop(stopProbability, 0, seed);
    }

    /** Every response is {@code naturalLength} tokens long, unless its limit is lower ("length" then). */
    public static EarlyStop naturalLength(int naturalLength) {
        if (naturalLength < 1) throw new IllegalArgumentException("naturalLength (" + naturalLength + ") must be >= 1");
        return new EarlyStop(1, naturalLength, 0);
    }

    public boolean isNone() {
        return stopProbability == 0;
    }

    /**
     * The number of tokens to generate: {@code maxTokens} (finish "length"), or fewer (finish "stop").
     *
     * @param promptSeed  the request's text seed ({@link TokenText#seedOf})
     * @param maxTokens   the request's limit
     * @param lowerBound  the least early-stop length, {@code max(1, min_tokens, reasoning + 1)}
     * @param ignoreEos   the request's {@code ignore_eos}
     */
    int generatedTokens(long promptSeed, int maxTokens, int lowerBound, boolean ignoreEos) {
        if (ignoreEos || stopProbability == 0) return maxTokens;
        long bits = Hashing.mix(seed ^ promptSeed, 0);
        if (Hashing.unit(bits) >= stopProbability) return maxTokens;
        int lo = Math.max(1, lowerBound);
        if (lo >= maxTokens) return maxTokens;
        if (naturalLength > 0) return Math.min(maxTokens, Math.max(naturalLength, lo));
        return lo + (int) (Hashing.unit(Hashing.mix(bits, 1)) * (maxTokens - lo));
    }
}

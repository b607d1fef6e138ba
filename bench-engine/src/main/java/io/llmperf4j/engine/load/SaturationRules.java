package io.llmperf4j.engine.load;

/**
 * The seed script's judgement rules, with its numbers as defaults.
 *
 * @param minThroughputGain    a level whose system output tok/s grows by less than this fraction over the previous
 *                             level (or falls) is saturated; 0.05 = 5 %
 * @param ttftJumpFactor       a level whose TTFT p90 is at least this multiple of the previous level's crosses the
 *                             experience red line (queueing); 3 = 3×
 * @param minSuccessfulSamples levels with fewer successful requests get a warning: their percentiles are unstable
 */
public record SaturationRules(double minThroughputGain, double ttftJumpFactor, int minSuccessfulSamples) {

    public static final double DEFAULT_MIN_THROUGHPUT_GAIN = 0.05;
    public static final double DEFAULT_TTFT_JUMP_FACTOR = 3.0;
    public static final int DEFAULT_MIN_SUCCESSFUL_SAMPLES = 10;
    public static final SaturationRules DEFAULT = new SaturationRules(DEFAULT_MIN_THROUGHPUT_GAIN,
            DEFAULT_TTFT_JUMP_FACTOR, DEFAULT_MIN_SUCCESSFUL_SAMPLES);

    public SaturationRules {
        if (!Double.isFinite(minThroughputGain)) {
            throw new IllegalArgumentException("minThroughputGain (" + minThroughputGain + ") must be finite");
        }
        if (!(ttftJumpFactor > 1) || Double.isInfinite(ttftJumpFactor)) {
            throw new IllegalArgumentException("ttftJumpFactor (" + ttftJumpFactor + ") must be > 1 and finite");
        }
        if (minSuccessfulSamples < 0) {
            throw new IllegalArgumentException("minSuccessfulSamples (" + minSuccessfulSamples + ") must be >= 0");
        }
    }

    public SaturationRules withMinThroughputGain(double gain) {
        return new SaturationRules(gain, ttftJumpFactor, minSuccessfulSamples);
    }

    public SaturationRules withTtftJumpFactor(double factor) {
        return new SaturationRules(minThroughputGain, factor, minSuccessfulSamples);
    }

    public SaturationRules withMinSuccessfulSamples(int samples) {
        return new SaturationRules(minThroughputGain, ttftJumpFactor, samples);
    }
}

package io.llmperf4j.tokenize.prompt;

/** llmperf's {@code sample_random_positive_int}, plus a bound on redraws where llmperf would loop forever. */
final class LengthSampler {
    /** Far above what any usable distribution needs (mean 20 sd 5 with a 28-token floor takes ~20 draws). */
    static final int MAX_DRAWS = 1_000_000;

    private LengthSampler() {
    }

    /** {@code int(random.gauss(mean, sd))} (truncates toward zero), redrawn while {@code <= 0}. */
    static int samplePositiveInt(PythonRandom random, int mean, int stddev) {
        for (int draw = 0; draw < MAX_DRAWS; draw++) {
            int value = truncateToInt(random.gauss(mean, stddev));
            if (value > 0) return value;
        }
        throw new IllegalArgumentException("no positive value in " + MAX_DRAWS + " draws from a normal distribution "
                + "with mean " + mean + " and standard deviation " + stddev + "; use a larger mean");
    }

    /** {@link #samplePositiveInt}, redrawn while below {@code minimum}: llmperf's loop for the prompt length. */
    static int samplePositiveIntAtLeast(PythonRandom random, int mean, int stddev, int minimum) {
        for (int draw = 0; draw < MAX_DRAWS; draw++) {
            int value = samplePositiveInt(random, mean, stddev);
            if (value >= minimum) return value;
        }
        throw new IllegalArgumentException("no input length >= " + minimum + " tokens (the prompt prefix) in "
                + MAX_DRAWS + " draws from a normal distribution with mean " + mean + " and standard deviation "
                + stddev + "; raise the mean input tokens");
    }

    /** Python's {@code int(float)}; values beyond int range are clamped (they would not fit a request anyway). */
    private static int truncateToInt(double value) {
        return (int) value; // Java's narrowing also truncates toward zero, and saturates at the int limits
    }
}

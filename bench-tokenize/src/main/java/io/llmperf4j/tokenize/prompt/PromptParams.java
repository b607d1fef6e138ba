package io.llmperf4j.tokenize.prompt;

import java.util.Objects;

/**
 * What to synthesize: the prompt-length and {@code max_tokens} distributions (llmperf's {@code --mean-input-tokens},
 * {@code --stddev-input-tokens}, {@code --mean-output-tokens}, {@code --stddev-output-tokens}: two
 * {@link LengthDistribution.Normal}s), {@code --max-num-completed-requests}, the length mode and the seed.
 *
 * @param inputLengths  prompt lengths, in tokens
 * @param outputLengths the {@code max_tokens} of each request
 * @param requestCount  number of requests to synthesize
 * @param mode          how lengths are reported and met
 * @param seed          seed of the CPython-compatible generator (llmperf: {@value #LLMPERF_SEED})
 */
public record PromptParams(LengthDistribution inputLengths, LengthDistribution outputLengths, int requestCount,
                           PromptMode mode, long seed) {
    public static final int DEFAULT_MEAN_INPUT_TOKENS = 550;
    public static final int DEFAULT_STDDEV_INPUT_TOKENS = 150;
    public static final int DEFAULT_MEAN_OUTPUT_TOKENS = 150;
    public static final int DEFAULT_STDDEV_OUTPUT_TOKENS = 80;
    public static final int DEFAULT_REQUEST_COUNT = 10;
    /** llmperf calls {@code random.seed(11111)} before generating prompts (PR #45). */
    public static final long LLMPERF_SEED = 11111;

    public PromptParams {
        Objects.requireNonNull(inputLengths, "inputLengths");
        Objects.requireNonNull(outputLengths, "outputLengths");
        Objects.requireNonNull(mode, "mode");
        if (requestCount < 0) throw new IllegalArgumentException("requestCount (" + requestCount + ") must be >= 0");
    }

    /**
     * llmperf's parameters: normal prompt lengths and {@code max_tokens}, each redrawn while non-positive.
     *
     * @param meanInputTokens    mean of the prompt lengths, in tokens
     * @param stddevInputTokens  their standard deviation ({@code 0} still consumes random numbers, like llmperf)
     * @param meanOutputTokens   mean of the drawn {@code max_tokens}
     * @param stddevOutputTokens their standard deviation
     */
    public PromptParams(int meanInputTokens, int stddevInputTokens, int meanOutputTokens, int stddevOutputTokens,
                        int requestCount, PromptMode mode, long seed) {
        this(normal("stddevInputTokens", meanInputTokens, stddevInputTokens),
                normal("stddevOutputTokens", meanOutputTokens, stddevOutputTokens), requestCount, mode, seed);
    }

    private static LengthDistribution normal(String name, int mean, int stddev) {
        if (stddev < 0) throw new IllegalArgumentException(name + " (" + stddev + ") must be >= 0");
        return LengthDistribution.normal(mean, stddev);
    }

    /** llmperf's defaults: 550±150 input tokens, 150±80 output tokens, 10 requests, seed 11111. */
    public static PromptParams llmperfDefaults(PromptMode mode) {
        return new PromptParams(DEFAULT_MEAN_INPUT_TOKENS, DEFAULT_STDDEV_INPUT_TOKENS, DEFAULT_MEAN_OUTPUT_TOKENS,
                DEFAULT_STDDEV_OUTPUT_TOKENS, DEFAULT_REQUEST_COUNT, mode, LLMPERF_SEED);
    }

    /** {@link LengthDistribution#mean()} of the prompt lengths (llmperf's {@code mean_input_tokens}). */
    public int meanInputTokens() {
        return inputLengths.mean();
    }

    public int stddevInputTokens() {
        return inputLengths.stddev();
    }

    public int meanOutputTokens() {
        return outputLengths.mean();
    }

    public int stddevOutputTokens() {
        return outputLengths.stddev();
    }

    public PromptParams withRequestCount(int count) {
        return new PromptParams(inputLengths, outputLengths, count, mode, seed);
    }

    public PromptParams withMode(PromptMode newMode) {
        return new PromptParams(inputLengths, outputLengths, requestCount, newMode, seed);
    }

    public PromptParams withSeed(long newSeed) {
        return new PromptParams(inputLengths, outputLengths, requestCount, mode, newSeed);
    }

    /** Normal prompt lengths, as llmperf draws them. */
    public PromptParams withInput(int mean, int stddev) {
        return withInputLengths(normal("stddevInputTokens", mean, stddev));
    }

    /** Normal {@code max_tokens}, as llmperf draws them. */
    public PromptParams withOutput(int mean, int stddev) {
        return withOutputLengths(normal("stddevOutputTokens", mean, stddev));
    }

    public PromptParams withInputLengths(LengthDistribution lengths) {
        return new PromptParams(lengths, outputLengths, requestCount, mode, seed);
    }

    public PromptParams withOutputLengths(LengthDistribution lengths) {
        return new PromptParams(inputLengths, lengths, requestCount, mode, seed);
    }
}

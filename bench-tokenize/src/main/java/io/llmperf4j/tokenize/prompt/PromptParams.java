package io.llmperf4j.tokenize.prompt;

import java.util.Objects;

/**
 * What to synthesize: llmperf's {@code --mean-input-tokens}, {@code --stddev-input-tokens},
 * {@code --mean-output-tokens}, {@code --stddev-output-tokens} and {@code --max-num-completed-requests}, plus the
 * length mode and the seed.
 *
 * @param meanInputTokens     mean of the normal distribution prompt lengths are drawn from, in tokens
 * @param stddevInputTokens   its standard deviation, in tokens ({@code 0} still consumes random numbers, like llmperf)
 * @param meanOutputTokens    mean of the drawn {@code max_tokens}
 * @param stddevOutputTokens  its standard deviation
 * @param requestCount        number of requests to synthesize
 * @param mode                how lengths are reported and met
 * @param seed                seed of the CPython-compatible generator (llmperf: {@value #LLMPERF_SEED})
 */
public record PromptParams(int meanInputTokens, int stddevInputTokens, int meanOutputTokens, int stddevOutputTokens,
                           int requestCount, PromptMode mode, long seed) {
    public static final int DEFAULT_MEAN_INPUT_TOKENS = 550;
    public static final int DEFAULT_STDDEV_INPUT_TOKENS = 150;
    public static final int DEFAULT_MEAN_OUTPUT_TOKENS = 150;
    public static final int DEFAULT_STDDEV_OUTPUT_TOKENS = 80;
    public static final int DEFAULT_REQUEST_COUNT = 10;
    /** llmperf calls {@code random.seed(11111)} before generating prompts (PR #45). */
    public static final long LLMPERF_SEED = 11111;

    public PromptParams {
        Objects.requireNonNull(mode, "mode");
        if (stddevInputTokens < 0) throw new IllegalArgumentException("stddevInputTokens (" + stddevInputTokens + ") must be >= 0");
        if (stddevOutputTokens < 0) throw new IllegalArgumentException("stddevOutputTokens (" + stddevOutputTokens + ") must be >= 0");
        if (requestCount < 0) throw new IllegalArgumentException("requestCount (" + requestCount + ") must be >= 0");
    }

    /** llmperf's defaults: 550±150 input tokens, 150±80 output tokens, 10 requests, seed 11111. */
    public static PromptParams llmperfDefaults(PromptMode mode) {
        return new PromptParams(DEFAULT_MEAN_INPUT_TOKENS, DEFAULT_STDDEV_INPUT_TOKENS, DEFAULT_MEAN_OUTPUT_TOKENS,
                DEFAULT_STDDEV_OUTPUT_TOKENS, DEFAULT_REQUEST_COUNT, mode, LLMPERF_SEED);
    }

    public PromptParams withRequestCount(int count) {
        return new PromptParams(meanInputTokens, stddevInputTokens, meanOutputTokens, stddevOutputTokens, count, mode, seed);
    }

    public PromptParams withMode(PromptMode newMode) {
        return new PromptParams(meanInputTokens, stddevInputTokens, meanOutputTokens, stddevOutputTokens, requestCount, newMode, seed);
    }

    public PromptParams withInput(int mean, int stddev) {
        return new PromptParams(mean, stddev, meanOutputTokens, stddevOutputTokens, requestCount, mode, seed);
    }

    public PromptParams withOutput(int mean, int stddev) {
        return new PromptParams(meanInputTokens, stddevInputTokens, mean, stddev, requestCount, mode, seed);
    }
}

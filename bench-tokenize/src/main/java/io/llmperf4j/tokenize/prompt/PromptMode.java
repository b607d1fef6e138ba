package io.llmperf4j.tokenize.prompt;

/** How prompt lengths are produced and reported. Both modes draw the same random numbers in the same order. */
public enum PromptMode {
    /**
     * llmperf's algorithm to the letter: the reported {@code number_input_tokens} is the sampled target {@code n},
     * while the prompt itself is shorter (every line is counted with its own BOS, and the last line is cut by
     * characters, not tokens): about 6-7 % less for the defaults.
     */
    LLMPERF,
    /**
     * The same draws and the same shuffled lines, but the prompt is cut so that it encodes to exactly {@code n}
     * tokens (special tokens included), and that re-encoded count is reported.
     */
    EXACT
}

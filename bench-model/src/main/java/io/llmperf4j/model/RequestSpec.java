package io.llmperf4j.model;

import java.util.Objects;

/**
 * One request of a workload, fixed before the run starts (llmperf pre-generates all prompts, PR #54).
 *
 * @param index             position in the workload, 0-based
 * @param prompt            the user message text
 * @param numberInputTokens the input token count reported for this prompt (llmperf mode: the sampled target;
 *                          exact mode: the real count, BOS included)
 * @param maxTokens         the {@code max_tokens} sent with the request, or {@link #NO_MAX_TOKENS} to send none
 *                          (llmperf's correctness test sends none)
 * @param inputs            system prompt, conversation history, images and session of the request;
 *                          {@link RequestInputs#TEXT_ONLY} for llmperf's single-turn text prompts
 */
public record RequestSpec(int index, String prompt, int numberInputTokens, int maxTokens, RequestInputs inputs) {
    /** A {@code maxTokens} of 0: the request carries no {@code max_tokens} field; the server decides the length. */
    public static final int NO_MAX_TOKENS = 0;

    public RequestSpec {
        Objects.requireNonNull(prompt, "prompt");
        inputs = inputs == null ? RequestInputs.TEXT_ONLY : inputs;
        if (index < 0) throw new IllegalArgumentException("index (" + index + ") must be >= 0");
        if (numberInputTokens < 0) {
            throw new IllegalArgumentException("numberInputTokens (" + numberInputTokens + ") must be >= 0");
        }
        if (maxTokens < 0) {
            throw new IllegalArgumentException("maxTokens (" + maxTokens + ") must be >= 1, or NO_MAX_TOKENS (0)");
        }
    }

    /**
     * This request with numberInputTokens the count of its system prompt, {@link RequestInputs#SYSTEM_PROMPT_SEPARATOR}
     * and prompt as one text: the tokens it sends without history (the completions API joins them so); itself
     * without a system prompt, or when {@code counter} cannot count (a negative count).
     */
    public RequestSpec withSystemPromptCounted(TokenCounter counter) {
        String system = inputs.systemPrompt();
        if (system == null || system.isEmpty()) return this;
        int count = counter.count(system + RequestInputs.SYSTEM_PROMPT_SEPARATOR + prompt);
        return count < 0 ? this : new RequestSpec(index, prompt, count, maxTokens, inputs);
    }

    /** This request with {@code maxTokens} in place of its own (what its body carried, when that differs). */
    public RequestSpec withMaxTokens(int maxTokens) {
        return maxTokens == this.maxTokens ? this : new RequestSpec(index, prompt, numberInputTokens, maxTokens, inputs);
    }

    /** A single-turn text request, llmperf's kind. */
    public RequestSpec(int index, String prompt, int numberInputTokens, int maxTokens) {
        this(index, prompt, numberInputTokens, maxTokens, RequestInputs.TEXT_ONLY);
    }
}

package io.llmperf4j.tokenize.prompt;

/** The instruction every llmperf prompt starts with; it embeds the request's {@code max_tokens}. */
final class PromptPrefix {
    private PromptPrefix() {
    }

    static String text(int maxTokens) {
        return "Randomly stream lines from the following text with " + maxTokens + " output tokens. "
                + "Don't generate eos tokens:\n\n";
    }
}

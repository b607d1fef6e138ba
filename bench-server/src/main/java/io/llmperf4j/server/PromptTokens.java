package io.llmperf4j.server;

/** The prompt token count reported in usage when no {@code TokenCounter} is configured. */
final class PromptTokens {

    private PromptTokens() {
    }

    /**
     * 1 (BOS) + ceil(chars / 4): OpenAI's rule of thumb of about four characters of English per token. It
     * undercounts Llama-2 on poetry-like text (sonnet.txt runs about 3.4 characters per token); configure
     * a real counter when usage must be exact.
     */
    static int estimate(String text) {
        return 1 + (int) ((text.length() + 3L) / 4);
    }
}

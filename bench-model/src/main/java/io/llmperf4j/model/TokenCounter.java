package io.llmperf4j.model;

/** Counts tokens of a text. Implementations must be safe to call from several threads. */
@FunctionalInterface
public interface TokenCounter {
    /**
     * Tokens in {@code text} as llmperf counts them: {@code len(tokenizer.encode(text))}, special tokens the
     * tokenizer's post-processor adds (the Llama BOS) included, so an empty text counts 1 with Llama-2.
     */
    int count(String text);
}

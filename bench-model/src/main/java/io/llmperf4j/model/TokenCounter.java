package io.llmperf4j.model;

/** Counts tokens of a text. Implementations must be safe to call from several threads. */
@FunctionalInterface
public interface TokenCounter {

    /** In {@link #tokenEnds}: a token the tokenizer's post-processor added (the Llama BOS), which has no text. */
    int NO_TEXT = -1;

    /**
     * Tokens in {@code text} as llmperf counts them: {@code len(tokenizer.encode(text))}, special tokens the
     * tokenizer's post-processor adds (the Llama BOS) included, so an empty text counts 1 with Llama-2.
     */
    int count(String text);

    /**
     * The same tokens with where each ends: element i is the index in {@code text} (UTF-16 units) just past token i,
     * or {@link #NO_TEXT} for an added special token; the length is {@link #count}. A token that straddles two
     * characters' bytes ends after the later one. Null (the default) when this counter cannot tell; then per-event
     * token counts ({@link ClientTokenCount}) are not filled.
     */
    default int[] tokenEnds(String text) {
        return null;
    }
}

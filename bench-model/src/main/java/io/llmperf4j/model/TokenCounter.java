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

    /**
     * The tokens of {@code text} streamed as content events of {@code eventChars} UTF-16 units each (they add up to
     * the text): how many tokens end in each event ({@link ClientTokenCount#perEvent} of {@link #tokenEnds}) and
     * {@link #count}. Null when this counter cannot tell (no {@link #tokenEnds}). The default takes those two steps;
     * a counter that can count per event as it tokenizes overrides it and keeps the token ends to itself (for a 1 MB
     * answer they are a 1 MB array).
     */
    default EventTokens tokensPerEvent(String text, int[] eventChars) {
        int[] ends = tokenEnds(text);
        return ends == null ? null : new EventTokens(ends.length, ClientTokenCount.perEvent(ends, eventChars));
    }

    /**
     * @param total    {@link #count} of the text: the added special tokens included
     * @param perEvent tokens ending in each event; they add up to {@code total} minus the added special tokens
     */
    record EventTokens(int total, int[] perEvent) {
    }
}

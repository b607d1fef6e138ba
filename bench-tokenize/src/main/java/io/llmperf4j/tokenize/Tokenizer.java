package io.llmperf4j.tokenize;

import io.llmperf4j.model.TokenCounter;

/**
 * A text tokenizer, counted the way llmperf counts: {@link #count} is {@code len(tokenizer.encode(text))}, the special
 * tokens the tokenizer's post-processor adds (the Llama {@code <s>}) included.
 *
 * <p>Implementations are safe for concurrent use. Nothing is ever truncated or padded: a 5,000-token text counts
 * 5,000.
 */
public interface Tokenizer extends TokenCounter {

    /** Token ids of {@code text}, special tokens included (Llama-2: starts with {@code <s>} = 1). */
    long[] encode(String text);

    /** Like {@link #encode}, plus where each token ends in {@code text}; exact-length prompts are cut with it. */
    TokenizedText encodeWithOffsets(String text);

    /** Tokens of {@code text} without the special tokens the post-processor adds. */
    int countWithoutSpecialTokens(String text);

    /** Text of {@code ids}, special tokens skipped, so {@code decode(encode(t))} gives {@code t} back. */
    String decode(long[] ids);

    /** What was loaded, for results files: e.g. {@code "llama-2 (built in)"} or the tokenizer.json path. */
    String id();

    @Override
    default int count(String text) {
        return encode(text).length;
    }

    /** From {@link #encodeWithOffsets}: the BOS and other added tokens are {@link #NO_TEXT}. */
    @Override
    default int[] tokenEnds(String text) {
        return encodeWithOffsets(text).endCharIndex();
    }
}

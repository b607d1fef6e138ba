package io.llmperf4j.tokenize;

/**
 * Token ids of a text with the end of each token in that text.
 *
 * @param ids          token ids, special tokens included
 * @param endCharIndex for each token, the index in the Java string (UTF-16 units) just past the token's text;
 *                     {@link #NO_OFFSET} for tokens the post-processor added, which have no text
 */
public record TokenizedText(long[] ids, int[] endCharIndex) {
    public static final int NO_OFFSET = io.llmperf4j.model.TokenCounter.NO_TEXT;

    public TokenizedText {
        if (ids.length != endCharIndex.length) {
            throw new IllegalArgumentException(ids.length + " ids but " + endCharIndex.length + " offsets");
        }
    }

    public int count() {
        return ids.length;
    }
}

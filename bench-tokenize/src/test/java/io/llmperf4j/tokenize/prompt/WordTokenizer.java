package io.llmperf4j.tokenize.prompt;

import io.llmperf4j.tokenize.TokenizedText;
import io.llmperf4j.tokenize.Tokenizer;
import java.util.ArrayList;
import java.util.List;

/**
 * A fake tokenizer for tests that need no native code: a BOS, then one token per whitespace-separated word, except
 * that a word holding a llama emoji is four tokens ending at the same place (like Llama's byte fallback).
 */
final class WordTokenizer implements Tokenizer {
    static final String LLAMA = "\uD83E\uDD99";

    @Override
    public long[] encode(String text) {
        return encodeWithOffsets(text).ids();
    }

    @Override
    public TokenizedText encodeWithOffsets(String text) {
        List<Integer> ends = new ArrayList<>();
        List<Long> ids = new ArrayList<>();
        ends.add(TokenizedText.NO_OFFSET);
        ids.add(1L);
        int i = 0;
        while (i < text.length()) {
            while (i < text.length() && Character.isWhitespace(text.charAt(i))) i++;
            if (i == text.length()) break;
            int start = i;
            while (i < text.length() && !Character.isWhitespace(text.charAt(i))) i++;
            int tokens = text.substring(start, i).contains(LLAMA) ? 4 : 1;
            for (int t = 0; t < tokens; t++) {
                ends.add(i);
                ids.add(100L + (text.substring(start, i).hashCode() & 0xffff) * 4L + t); // the same word, the same ids
            }
        }
        return new TokenizedText(ids.stream().mapToLong(Long::longValue).toArray(),
                ends.stream().mapToInt(Integer::intValue).toArray());
    }

    @Override
    public int countWithoutSpecialTokens(String text) {
        return count(text) - 1;
    }

    @Override
    public String decode(long[] ids) {
        throw new UnsupportedOperationException();
    }

    @Override
    public String id() {
        return "words";
    }
}

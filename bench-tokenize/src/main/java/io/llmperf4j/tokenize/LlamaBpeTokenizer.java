package io.llmperf4j.tokenize;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A Llama-2-shaped tokenizer.json ({@link LlamaBpeModel}) run in Java, giving the ids and offsets the Rust library
 * gives, at a fraction of its cost: the library runs BPE over the whole text as one word, with a JNI call and an
 * object per token for the offsets. Counting every response of a run with it was the client's main CPU cost.
 *
 * <p>The normalized text ({@code ▁} in front, every space a {@code ▁}) is cut before each {@code ▁} that follows
 * another character; no piece of the vocabulary holds such a {@code ▁} ({@link LlamaBpeModel#of} checks), so no
 * merge crosses a cut and encoding the parts one by one gives the library's tokens. Texts holding an added token's
 * text ({@code <s>}), a NUL or an unpaired surrogate are left to the library, as is {@link #decode}.
 */
final class LlamaBpeTokenizer implements Tokenizer {
    private final LlamaBpeModel model;
    private final Supplier<? extends Tokenizer> library;
    private final String id;

    /**
     * @param library the same tokenizer.json run by the Rust library; called for the texts and calls left to it,
     *                which may be none in a run, so it may load on first use
     */
    LlamaBpeTokenizer(LlamaBpeModel model, Supplier<? extends Tokenizer> library, String id) {
        this.model = Objects.requireNonNull(model, "model");
        this.library = Objects.requireNonNull(library, "library");
        this.id = Objects.requireNonNull(id, "id");
    }

    @Override
    public long[] encode(String text) {
        Tokens tokens = tokens(text, false);
        if (tokens == null) return library.get().encode(text);
        long[] ids = new long[tokens.size + 1];
        ids[0] = model.bosId();
        for (int i = 0; i < tokens.size; i++) ids[i + 1] = tokens.ids[i];
        return ids;
    }

    @Override
    public TokenizedText encodeWithOffsets(String text) {
        Tokens tokens = tokens(text, true);
        if (tokens == null) return library.get().encodeWithOffsets(text);
        long[] ids = new long[tokens.size + 1];
        int[] ends = new int[tokens.size + 1];
        ids[0] = model.bosId();
        ends[0] = TokenizedText.NO_OFFSET;
        for (int i = 0; i < tokens.size; i++) {
            ids[i + 1] = tokens.ids[i];
            ends[i + 1] = tokens.ends[i];
        }
        return new TokenizedText(ids, ends);
    }

    @Override
    public int[] tokenEnds(String text) {
        Tokens tokens = tokens(text, true);
        if (tokens == null) return library.get().tokenEnds(text);
        int[] ends = new int[tokens.size + 1];
        ends[0] = NO_TEXT;
        System.arraycopy(tokens.ends, 0, ends, 1, tokens.size);
        return ends;
    }

    @Override
    public int count(String text) {
        Tokens tokens = tokens(text, false);
        return tokens == null ? library.get().count(text) : tokens.size + 1;
    }

    @Override
    public int countWithoutSpecialTokens(String text) {
        Tokens tokens = tokens(text, false);
        return tokens == null ? library.get().countWithoutSpecialTokens(text) : tokens.size;
    }

    @Override
    public String decode(long[] ids) {
        return library.get().decode(ids);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String toString() {
        return "Tokenizer[" + id + "]";
    }

    /**
     * The tokens of {@code text} without the BOS, with their ends in {@code text} when {@code withEnds}; null when
     * the text is left to the library.
     */
    private Tokens tokens(String text, boolean withEnds) {
        int length = text.length();
        Tokens tokens = new Tokens(withEnds, length / 3 + 4);
        if (length == 0) return tokens; // the library prepends nothing to an empty text
        if (model.holdsAddedToken(text)) return null;
        char[] normalized = new char[length + 1];
        normalized[0] = LlamaBpeModel.SPACE_MARK;
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (c == 0) return null;
            if (Character.isSurrogate(c)) {
                boolean paired = Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(text.charAt(i + 1));
                if (!paired) return null;
                normalized[i + 1] = c;
                normalized[i + 2] = text.charAt(++i);
                continue;
            }
            normalized[i + 1] = c == ' ' ? LlamaBpeModel.SPACE_MARK : c;
        }
        // the prepended ▁ takes the place of the first character: a token made of it ends after that character
        tokens.firstCharEnd = Character.charCount(text.codePointAt(0));
        int wordStart = 0;
        for (int i = 1; i < normalized.length; i++) {
            if (normalized[i] == LlamaBpeModel.SPACE_MARK && normalized[i - 1] != LlamaBpeModel.SPACE_MARK) {
                model.encodeWord(normalized, wordStart, i, tokens);
                wordStart = i;
            }
        }
        model.encodeWord(normalized, wordStart, normalized.length, tokens);
        return tokens;
    }

    /** Token ids and ends in the original text (a normalized index minus the prepended ▁). */
    private static final class Tokens implements LlamaBpeModel.TokenSink {
        private final boolean withEnds;
        int[] ids;
        int[] ends;
        int size;
        int firstCharEnd;

        Tokens(boolean withEnds, int capacity) {
            this.withEnds = withEnds;
            ids = new int[capacity];
            ends = withEnds ? new int[capacity] : null;
        }

        @Override
        public void token(int id, int normalizedEnd) {
            if (size == ids.length) {
                ids = Arrays.copyOf(ids, size * 2);
                if (withEnds) ends = Arrays.copyOf(ends, size * 2);
            }
            ids[size] = id;
            if (withEnds) ends[size] = normalizedEnd == 1 ? firstCharEnd : normalizedEnd - 1;
            size++;
        }
    }
}

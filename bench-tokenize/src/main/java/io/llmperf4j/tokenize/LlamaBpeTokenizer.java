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
    private final ThreadLocal<Tokens> workspaces = ThreadLocal.withInitial(Tokens::new);

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
        Tokens tokens = tokens(text, true, false);
        if (tokens == null) return library.get().encode(text);
        long[] ids = new long[tokens.size + 1];
        ids[0] = model.bosId();
        for (int i = 0; i < tokens.size; i++) ids[i + 1] = tokens.ids[i];
        tokens.release();
        return ids;
    }

    @Override
    public TokenizedText encodeWithOffsets(String text) {
        Tokens tokens = tokens(text, true, true);
        if (tokens == null) return library.get().encodeWithOffsets(text);
        long[] ids = new long[tokens.size + 1];
        int[] ends = new int[tokens.size + 1];
        ids[0] = model.bosId();
        ends[0] = TokenizedText.NO_OFFSET;
        for (int i = 0; i < tokens.size; i++) ids[i + 1] = tokens.ids[i];
        System.arraycopy(tokens.ends, 0, ends, 1, tokens.size);
        tokens.release();
        return new TokenizedText(ids, ends);
    }

    @Override
    public int[] tokenEnds(String text) {
        Tokens tokens = tokens(text, false, true);
        if (tokens == null) return library.get().tokenEnds(text);
        int[] ends = new int[tokens.size + 1];
        ends[0] = NO_TEXT;
        System.arraycopy(tokens.ends, 0, ends, 1, tokens.size);
        tokens.release();
        return ends;
    }

    /** Counted as the text is tokenized, each token into the event it ends in: no token ends are kept. */
    @Override
    public EventTokens tokensPerEvent(String text, int[] eventChars) {
        int[] perEvent = new int[eventChars.length];
        Tokens tokens = workspaces.get();
        tokens.start(false, false);
        tokens.countPerEvent(eventChars, perEvent);
        boolean inJava = encoded(text, tokens);
        int total = tokens.size + 1;
        tokens.release();
        return inJava ? new EventTokens(total, perEvent) : library.get().tokensPerEvent(text, eventChars);
    }

    @Override
    public int count(String text) {
        Tokens tokens = tokens(text, false, false);
        return tokens == null ? library.get().count(text) : tokens.size + 1;
    }

    @Override
    public int countWithoutSpecialTokens(String text) {
        Tokens tokens = tokens(text, false, false);
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
     * The tokens of {@code text} without the BOS (their ids when {@code withIds}, their ends in {@code text} when
     * {@code withEnds}) in this thread's {@link Tokens}, to be copied out before the next call; null when the text is
     * left to the library.
     */
    private Tokens tokens(String text, boolean withIds, boolean withEnds) {
        Tokens tokens = workspaces.get();
        tokens.start(withIds, withEnds);
        return encoded(text, tokens) ? tokens : null;
    }

    /** Gives the tokens of {@code text} without the BOS to {@code tokens}; false when the text is left to the library. */
    private boolean encoded(String text, Tokens tokens) {
        int length = text.length();
        if (length == 0) return true; // the library prepends nothing to an empty text
        if (model.holdsAddedToken(text)) return false;
        char[] normalized = tokens.normalized(length + 1);
        normalized[0] = LlamaBpeModel.SPACE_MARK;
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (c == 0) return false;
            if (Character.isSurrogate(c)) {
                boolean paired = Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(text.charAt(i + 1));
                if (!paired) return false;
                normalized[i + 1] = c;
                normalized[i + 2] = text.charAt(++i);
                continue;
            }
            normalized[i + 1] = c == ' ' ? LlamaBpeModel.SPACE_MARK : c;
        }
        // the prepended ▁ takes the place of the first character: a token made of it ends after that character
        tokens.firstCharEnd = Character.charCount(text.codePointAt(0));
        int wordStart = 0;
        for (int i = 1; i <= length; i++) {
            if (normalized[i] == LlamaBpeModel.SPACE_MARK && normalized[i - 1] != LlamaBpeModel.SPACE_MARK) {
                model.encodeWord(normalized, wordStart, i, tokens);
                wordStart = i;
            }
        }
        model.encodeWord(normalized, wordStart, length + 1, tokens);
        return true;
    }

    /**
     * Token ids and ends in the original text (a normalized index minus the prepended ▁), or the tokens per event,
     * and the normalized text, one per thread and reused call after call: counting a 1 MB answer made some 10 MB of
     * these arrays per call.
     */
    private static final class Tokens implements LlamaBpeModel.TokenSink {
        /** The most tokens (or characters) whose arrays stay for the next call: those of a 2 MB answer. */
        private static final int KEPT = 1 << 21;
        private static final int INITIAL = 256;
        private boolean withIds;
        private boolean withEnds;
        int[] ids = new int[INITIAL];
        int[] ends = new int[INITIAL];
        int size;
        int firstCharEnd;
        private char[] normalized = new char[INITIAL];
        /** When counting per event: each event's length, the counts, the event the last token ended in and its end. */
        private int[] eventChars;
        private int[] perEvent;
        private int event;
        private long eventEnd;

        void start(boolean withIds, boolean withEnds) {
            this.withIds = withIds;
            this.withEnds = withEnds;
            size = 0;
            perEvent = null;
        }

        /**
         * Counts each token in the event it ends in, as {@code ClientTokenCount.perEvent} does with the ends: one
         * ending at 0 in the first event, one past the last event's end in the last.
         */
        void countPerEvent(int[] eventChars, int[] perEvent) {
            this.eventChars = eventChars;
            this.perEvent = perEvent;
            event = 0;
            eventEnd = eventChars.length == 0 ? 0 : eventChars[0];
        }

        /** A buffer for the normalized text, of at least {@code length} characters. */
        char[] normalized(int length) {
            if (normalized.length < length) normalized = new char[Math.max(length, 2 * normalized.length)];
            return normalized;
        }

        @Override
        public void token(int id, int normalizedEnd) {
            if (withIds) {
                if (size == ids.length) ids = Arrays.copyOf(ids, 2 * size);
                ids[size] = id;
            }
            if (withEnds) {
                if (size == ends.length) ends = Arrays.copyOf(ends, 2 * size);
                ends[size] = normalizedEnd == 1 ? firstCharEnd : normalizedEnd - 1;
            }
            if (perEvent != null && perEvent.length > 0) {
                int end = normalizedEnd == 1 ? firstCharEnd : normalizedEnd - 1; // ascending, as the tokens come
                while (end > eventEnd && event < perEvent.length - 1) eventEnd += eventChars[++event];
                perEvent[event]++;
            }
            size++;
        }

        /** After the tokens were copied out: lets go of arrays grown beyond {@link #KEPT}. */
        void release() {
            eventChars = null;
            perEvent = null;
            if (ids.length > KEPT) ids = new int[INITIAL];
            if (ends.length > KEPT) ends = new int[INITIAL];
            if (normalized.length > KEPT) normalized = new char[INITIAL];
        }
    }
}

package io.llmperf4j.tokenize;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.CharSpan;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A HuggingFace {@code tokenizer.json} run by DJL's binding of the Rust tokenizers library.
 *
 * <p>Thread-safe: the native tokenizer is only read after loading. Loaded once per process and kept, since
 * loading takes about half a second and the native memory is small.
 */
final class DjlTokenizer implements Tokenizer {
    private static final String RUST_FLAVOR = "RUST_FLAVOR";
    private final HuggingFaceTokenizer tokenizer;
    private final String id;

    private DjlTokenizer(HuggingFaceTokenizer tokenizer, String id) {
        this.tokenizer = tokenizer;
        this.id = id;
    }

    /** Loads a tokenizer.json file (never a hub name: that would download). */
    static DjlTokenizer load(Path tokenizerJson, String id) throws IOException {
        preferBundledCpuLibrary();
        HuggingFaceTokenizer tokenizer = HuggingFaceTokenizer.builder()
                .optTokenizerPath(tokenizerJson)
                .optAddSpecialTokens(true)
                // without these DJL silently truncates every encoding at 512 tokens
                .optTruncation(false)
                .optPadding(false)
                .build();
        return new DjlTokenizer(tokenizer, id);
    }

    /**
     * Fetches {@code repoId}'s tokenizer.json from the HuggingFace hub through DJL (the native library's hub client,
     * which stores it in the HuggingFace cache; {@code HF_TOKEN} is used for gated models). Needs the network.
     */
    static DjlTokenizer download(String repoId, String id) throws IOException {
        preferBundledCpuLibrary();
        HuggingFaceTokenizer tokenizer = HuggingFaceTokenizer.builder()
                .optTokenizerName(repoId)
                .optAddSpecialTokens(true)
                .optTruncation(false)
                .optPadding(false)
                .build();
        return new DjlTokenizer(tokenizer, id);
    }

    /**
     * On a machine with a CUDA GPU, DJL would look for a GPU build of the native tokenizer and try to download it;
     * the CPU build inside the jar is all tokenizing needs. DJL reads RUST_FLAVOR from the environment or the
     * system properties; a value the user set wins.
     */
    private static void preferBundledCpuLibrary() {
        if (System.getenv(RUST_FLAVOR) == null && System.getProperty(RUST_FLAVOR) == null) {
            System.setProperty(RUST_FLAVOR, "cpu");
        }
    }

    @Override
    public long[] encode(String text) {
        return tokenizer.encode(text, true, false).getIds();
    }

    @Override
    public TokenizedText encodeWithOffsets(String text) {
        Encoding encoding = tokenizer.encode(text, true, false);
        long[] ids = encoding.getIds();
        long[] specialMask = encoding.getSpecialTokenMask();
        CharSpan[] spans = encoding.getCharTokenSpans();
        int[] ends = new int[ids.length];
        CodePointIndex index = new CodePointIndex(text);
        for (int i = 0; i < ids.length; i++) {
            boolean added = specialMask[i] != 0 || spans[i] == null;
            // the native offsets count Unicode code points; Java strings index UTF-16 units
            ends[i] = added ? TokenizedText.NO_OFFSET : index.utf16Index(spans[i].getEnd());
        }
        return new TokenizedText(ids, ends);
    }

    @Override
    public int countWithoutSpecialTokens(String text) {
        return tokenizer.encode(text, false, false).getIds().length;
    }

    @Override
    public String decode(long[] ids) {
        return tokenizer.decode(ids, true);
    }

    /** Frees the native tokenizer; only for instances never handed out. */
    void close() {
        tokenizer.close();
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String toString() {
        return "Tokenizer[" + id + "]";
    }

    /** Maps code-point offsets to UTF-16 indices; the identity for text without surrogate pairs. */
    private static final class CodePointIndex {
        private final int length;
        private final int[] utf16IndexOfCodePoint; // null when every code point is one UTF-16 unit

        CodePointIndex(String text) {
            length = text.length();
            int codePoints = text.codePointCount(0, length);
            if (codePoints == length) {
                utf16IndexOfCodePoint = null;
                return;
            }
            utf16IndexOfCodePoint = new int[codePoints + 1];
            for (int cp = 0, i = 0; cp <= codePoints; cp++) {
                utf16IndexOfCodePoint[cp] = i;
                if (i < length) i += Character.charCount(text.codePointAt(i));
            }
        }

        int utf16Index(int codePointOffset) {
            if (utf16IndexOfCodePoint == null) return Math.min(codePointOffset, length);
            return utf16IndexOfCodePoint[Math.min(codePointOffset, utf16IndexOfCodePoint.length - 1)];
        }
    }
}

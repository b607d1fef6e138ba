package io.llmperf4j.tokenize;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import com.knuddels.jtokkit.api.IntArrayList;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * An OpenAI BPE encoding run by jtokkit (pure Java; the encodings ship inside its jar).
 *
 * <p>These encodings add no special tokens: {@link #count} has no BOS, unlike Llama-2's, and equals
 * {@link #countWithoutSpecialTokens}. Text that spells a special token ({@code <|endoftext|>}) is encoded as ordinary
 * text, never as the special token. A lone UTF-16 surrogate (half of a pair that never came) is encoded as U+FFFD,
 * as Python's tiktoken encodes it (one token in cl100k_base; jtokkit alone would encode its three raw bytes).
 * Thread-safe.
 */
final class JtokkitTokenizer implements Tokenizer {
    /** The encodings offered, by their tiktoken names. */
    static final List<String> NAMES = Arrays.stream(EncodingType.values()).map(EncodingType::getName).toList();
    static final String ID_PREFIX = "jtokkit:";
    private static final EncodingRegistry REGISTRY = Encodings.newLazyEncodingRegistry();

    private final Encoding encoding;

    private JtokkitTokenizer(Encoding encoding) {
        this.encoding = encoding;
    }

    /** The encoding named like tiktoken ({@code cl100k_base}), or empty. */
    static Optional<JtokkitTokenizer> named(String name) {
        return EncodingType.fromName(name).map(type -> new JtokkitTokenizer(REGISTRY.getEncoding(type)));
    }

    @Override
    public long[] encode(String text) {
        IntArrayList ids = encoding.encodeOrdinary(wellFormed(text));
        long[] result = new long[ids.size()];
        for (int i = 0; i < result.length; i++) result[i] = ids.get(i);
        return result;
    }

    /** Token ends from each token's bytes; a token ending inside a character ends after that character. */
    @Override
    public TokenizedText encodeWithOffsets(String text) {
        text = wellFormed(text); // same UTF-16 length: the ends stay the caller's indices
        IntArrayList ids = encoding.encodeOrdinary(text);
        long[] result = new long[ids.size()];
        int[] ends = new int[ids.size()];
        IntArrayList one = new IntArrayList(1);
        int charIndex = 0;    // UTF-16 index just past the characters consumed so far
        long bytesOfChars = 0; // UTF-8 bytes of those characters
        long tokenBytes = 0;  // UTF-8 bytes of the tokens so far
        for (int i = 0; i < result.length; i++) {
            result[i] = ids.get(i);
            one.clear();
            one.add(ids.get(i));
            tokenBytes += encoding.decodeBytes(one).length;
            while (bytesOfChars < tokenBytes && charIndex < text.length()) {
                int codePoint = text.codePointAt(charIndex);
                bytesOfChars += utf8Length(codePoint);
                charIndex += Character.charCount(codePoint);
            }
            ends[i] = charIndex;
        }
        return new TokenizedText(result, ends);
    }

    private static int utf8Length(int codePoint) {
        if (codePoint < 0x80) return 1;
        if (codePoint < 0x800) return 2;
        return codePoint < 0x10000 ? 3 : 4;
    }

    @Override
    public int count(String text) {
        return encoding.countTokensOrdinary(wellFormed(text));
    }

    @Override
    public int countWithoutSpecialTokens(String text) {
        return count(text);
    }

    /** {@code text} with each lone surrogate replaced by U+FFFD (one UTF-16 unit for one); itself when it has none. */
    static String wellFormed(String text) {
        char[] chars = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!Character.isSurrogate(c)) continue;
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++; // a whole pair
                continue;
            }
            if (chars == null) chars = text.toCharArray();
            chars[i] = '\uFFFD';
        }
        return chars == null ? text : new String(chars);
    }

    @Override
    public String decode(long[] ids) {
        IntArrayList list = new IntArrayList(ids.length);
        for (long id : ids) list.add(Math.toIntExact(id));
        return new String(encoding.decodeBytes(list), StandardCharsets.UTF_8);
    }

    @Override
    public String id() {
        return ID_PREFIX + encoding.getName();
    }

    @Override
    public String toString() {
        return "Tokenizer[" + id() + "]";
    }
}

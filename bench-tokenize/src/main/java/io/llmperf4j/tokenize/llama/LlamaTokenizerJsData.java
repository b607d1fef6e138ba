package io.llmperf4j.tokenize.llama;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;

/**
 * The Llama-2 vocabulary and merges as llama-tokenizer-js stores them.
 *
 * @param vocab    the 32,000 token strings, index = token id (byte tokens are spelled {@code <0x0A>}, spaces {@code ▁})
 * @param mergeIds merges in priority order, flattened: {@code mergeIds[2k]} and {@code mergeIds[2k + 1]} are the
 *                 token ids of the left and right parts of merge {@code k}
 */
public record LlamaTokenizerJsData(List<String> vocab, int[] mergeIds) {
    public static final int VOCAB_SIZE = 32_000;
    public static final int MERGE_COUNT = 61_249;

    public LlamaTokenizerJsData {
        vocab = List.copyOf(vocab);
        if (vocab.size() != VOCAB_SIZE) {
            throw new IllegalArgumentException("vocabulary has " + vocab.size() + " tokens, expected " + VOCAB_SIZE);
        }
        if (mergeIds.length != 2 * MERGE_COUNT) {
            throw new IllegalArgumentException("merge data has " + mergeIds.length / 2 + " merges, expected " + MERGE_COUNT);
        }
        for (int id : mergeIds) {
            if (id < 0 || id >= VOCAB_SIZE) throw new IllegalArgumentException("merge refers to token id " + id);
        }
    }

    public int mergeCount() {
        return mergeIds.length / 2;
    }

    /** Reads {@link BuiltInLlama2#TARBALL_ENTRY} from the npm tarball. */
    public static LlamaTokenizerJsData fromTarball(InputStream tgz) throws IOException {
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new GzipCompressorInputStream(tgz))) {
            for (TarArchiveEntry entry; (entry = tar.getNextEntry()) != null; ) {
                if (entry.getName().equals(BuiltInLlama2.TARBALL_ENTRY)) {
                    return fromJavaScript(new String(tar.readAllBytes(), StandardCharsets.UTF_8));
                }
            }
        }
        throw new IOException("tarball has no " + BuiltInLlama2.TARBALL_ENTRY);
    }

    /** Parses the two base64 constants out of {@code llama-tokenizer.js}. */
    public static LlamaTokenizerJsData fromJavaScript(String source) {
        byte[] vocabUtf8 = Base64.getDecoder().decode(stringConstant(source, "llama_vocab_base64"));
        // split with limit -1: no token contains "\n" (newline is the byte token <0x0A>), some do contain "\r"
        List<String> vocab = List.of(new String(vocabUtf8, StandardCharsets.UTF_8).split("\n", -1));

        byte[] merges = Base64.getDecoder().decode(stringConstant(source, "llama_merges_binary"));
        if (merges.length % 4 != 0) {
            throw new IllegalArgumentException("merge data length " + merges.length + " is not a multiple of 4");
        }
        int[] ids = new int[merges.length / 2];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = (merges[2 * i] & 0xFF) | (merges[2 * i + 1] & 0xFF) << 8; // little-endian uint16
        }
        return new LlamaTokenizerJsData(vocab, ids);
    }

    private static String stringConstant(String source, String name) {
        String marker = "const " + name + " = \"";
        int start = source.indexOf(marker);
        if (start < 0) throw new IllegalArgumentException("no constant " + name + " in llama-tokenizer.js");
        start += marker.length();
        int end = source.indexOf('"', start);
        if (end < 0) throw new IllegalArgumentException("unterminated constant " + name);
        return source.substring(start, end);
    }
}

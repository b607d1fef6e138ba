package io.llmperf4j.tokenize;

import io.llmperf4j.tokenize.llama.BuiltInLlama2;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where tokenizers come from: the built-in Llama-2 tokenizer (llmperf's counting tokenizer) or a HuggingFace
 * {@code tokenizer.json} the user names. Never downloads anything.
 */
public final class Tokenizers {
    static final String TOKENIZER_JSON = "tokenizer.json";

    private static final Object BUILT_IN_LOCK = new Object();
    private static volatile Tokenizer builtInLlama2;

    private Tokenizers() {
    }

    /**
     * The Llama-2 tokenizer llmperf counts with, derived at build time from npm llama-tokenizer-js. Loaded once
     * and shared (it is thread-safe). The first call extracts it to
     * {@code ${java.io.tmpdir}/llmperf4j-tokenizers/<sha256 prefix>/tokenizer.json}, because DJL loads from a path.
     *
     * @throws TokenizerUnavailableException when this build could not derive it ({@link BuiltInLlama2#UNAVAILABLE_MESSAGE})
     */
    public static Tokenizer builtInLlama2() {
        Tokenizer cached = builtInLlama2;
        if (cached != null) return cached;
        synchronized (BUILT_IN_LOCK) {
            if (builtInLlama2 == null) builtInLlama2 = loadBuiltInLlama2(Tokenizers.class.getClassLoader());
            return builtInLlama2;
        }
    }

    /** Whether this build carries the built-in Llama-2 tokenizer. */
    public static boolean builtInLlama2Available() {
        return Tokenizers.class.getClassLoader().getResource(BuiltInLlama2.RESOURCE) != null;
    }

    /**
     * Loads a HuggingFace tokenizer.json, given as the file itself or a folder holding one. Each call loads anew
     * (about half a second): keep the instance.
     *
     * @throws TokenizerUnavailableException naming the path when it is missing, unreadable or not a tokenizer
     */
    public static Tokenizer fromPath(Path fileOrFolder) {
        Path file = Files.isDirectory(fileOrFolder) ? fileOrFolder.resolve(TOKENIZER_JSON) : fileOrFolder;
        if (!Files.exists(file)) {
            throw new TokenizerUnavailableException(Files.isDirectory(fileOrFolder)
                    ? "Tokenizer folder " + fileOrFolder.toAbsolutePath() + " holds no " + TOKENIZER_JSON
                    : "Tokenizer file " + file.toAbsolutePath() + " does not exist");
        }
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new TokenizerUnavailableException("Tokenizer file " + file.toAbsolutePath() + " is not a readable file");
        }
        try {
            return DjlTokenizer.load(file, file.toAbsolutePath().toString());
        } catch (IOException | RuntimeException e) {
            throw new TokenizerUnavailableException("Cannot load tokenizer " + file.toAbsolutePath()
                    + " as a HuggingFace tokenizer.json: " + e.getMessage(), e);
        }
    }

    static Tokenizer loadBuiltInLlama2(ClassLoader resources) {
        byte[] json;
        try (InputStream in = resources.getResourceAsStream(BuiltInLlama2.RESOURCE)) {
            if (in == null) throw new TokenizerUnavailableException(BuiltInLlama2.UNAVAILABLE_MESSAGE);
            json = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read resource " + BuiltInLlama2.RESOURCE, e);
        }
        Path file = TokenizerCache.extract(json);
        try {
            return DjlTokenizer.load(file, BuiltInLlama2.DISPLAY_NAME);
        } catch (IOException e) {
            throw new TokenizerUnavailableException("Cannot load the built-in Llama-2 tokenizer from " + file
                    + ": " + e.getMessage(), e);
        }
    }
}

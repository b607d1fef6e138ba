package io.llmperf4j.tokenize;

import io.llmperf4j.tokenize.llama.BuiltInLlama2;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Where tokenizers come from: the built-in Llama-2 tokenizer (llmperf's counting tokenizer), a HuggingFace
 * {@code tokenizer.json} the user names by path or by model id (from the local HuggingFace cache), an OpenAI
 * encoding (jtokkit), or the server's own usage counts. Downloads nothing unless
 * {@link TokenizerOptions#allowDownload()} says so.
 */
public final class Tokenizers {
    static final String TOKENIZER_JSON = "tokenizer.json";
    /** The spec used when the user names none. */
    public static final String DEFAULT_SPEC = TokenizerSpec.BuiltInLlama2.NAME;

    /** Larger tokenizer.json files (vocabularies of 100k and more) are never Llama-2-shaped: not parsed twice. */
    private static final long JAVA_BPE_MAX_FILE_BYTES = 4L << 20;
    private static final Object BUILT_IN_LOCK = new Object();
    private static volatile Tokenizer builtInLlama2;

    private Tokenizers() {
    }

    /**
     * The Llama-2 tokenizer llmperf counts with, derived at build time from npm llama-tokenizer-js. Loaded once
     * and shared (it is thread-safe). It runs in Java ({@link LlamaBpeTokenizer}, the same ids and offsets as the
     * Rust library); the library is loaded only for what the Java BPE leaves to it (decoding, texts holding
     * {@code <s>}), and then extracts the file to
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
            return withJavaBpeIfLlama(DjlTokenizer.load(file, file.toAbsolutePath().toString()), file);
        } catch (IOException | RuntimeException e) {
            throw new TokenizerUnavailableException("Cannot load tokenizer " + file.toAbsolutePath()
                    + " as a HuggingFace tokenizer.json: " + e.getMessage(), e);
        }
    }

    /**
     * Loads the tokenizer {@code spec} names; see {@link TokenizerSpec} for the forms. The {@link Tokenizer#id()}
     * of the result says exactly what counts: {@code "llama-2 (built in)"}, the tokenizer.json's absolute path,
     * {@code "hf:ORG/NAME@COMMIT"}, {@code "jtokkit:cl100k_base"} or {@code "server (usage counts)"}.
     *
     * @throws IllegalArgumentException        when {@code spec} is none of the accepted forms (the message lists them)
     * @throws TokenizerUnavailableException   when it names a tokenizer that cannot be loaded (the message says
     *                                         which file or cache folder, and what to do)
     */
    public static Tokenizer resolve(String spec, TokenizerOptions options) {
        return resolve(TokenizerSpec.parse(spec), options);
    }

    /** {@link #resolve(String, TokenizerOptions)} for a parsed spec. */
    public static Tokenizer resolve(TokenizerSpec spec, TokenizerOptions options) {
        if (spec instanceof TokenizerSpec.BuiltInLlama2) return builtInLlama2();
        if (spec instanceof TokenizerSpec.LocalFile file) return fromPath(file.path());
        if (spec instanceof TokenizerSpec.HuggingFace model) return fromHuggingFace(model, options);
        if (spec instanceof TokenizerSpec.Jtokkit encoding) return jtokkit(encoding.encoding());
        if (spec instanceof TokenizerSpec.Server) return ServerUsageCounting.INSTANCE;
        throw new IllegalArgumentException("unhandled tokenizer spec " + spec);
    }

    /** Whether {@code tokenizer} is the {@code server} marker, which cannot encode ({@link ServerUsageCounting}). */
    public static boolean isServerUsageCounting(Tokenizer tokenizer) {
        return tokenizer instanceof ServerUsageCounting;
    }

    /**
     * An OpenAI encoding run by jtokkit ({@code cl100k_base}, {@code o200k_base}, {@code p50k_base},
     * {@code p50k_edit}, {@code r50k_base}). These add no BOS: {@code count("Hello world")} is 2 with cl100k_base.
     *
     * @throws IllegalArgumentException for another name
     */
    public static Tokenizer jtokkit(String encoding) {
        return JtokkitTokenizer.named(encoding).orElseThrow(() -> new IllegalArgumentException(
                "Unknown jtokkit encoding '" + encoding + "'; use one of " + String.join(", ", JtokkitTokenizer.NAMES)));
    }

    private static Tokenizer fromHuggingFace(TokenizerSpec.HuggingFace model, TokenizerOptions options) {
        Path hub = options.hubCache();
        HuggingFaceCache.Lookup lookup = HuggingFaceCache.locate(hub, model.repoId(), model.revision());
        if (lookup.found()) {
            Path file = lookup.snapshot().tokenizerJson();
            String id = "hf:" + model.repoId() + "@" + lookup.snapshot().commit();
            try {
                return withJavaBpeIfLlama(DjlTokenizer.load(file, id), file);
            } catch (IOException | RuntimeException e) {
                throw new TokenizerUnavailableException("Cannot load tokenizer " + model.repoId() + " from the "
                        + "HuggingFace cache file " + file.toAbsolutePath() + ": " + e.getMessage(), e);
            }
        }
        String name = model.repoId() + (model.revision() == null ? "" : "@" + model.revision());
        if (!options.allowDownload()) {
            throw new TokenizerUnavailableException("Tokenizer " + name + " is not in the local HuggingFace cache ("
                    + lookup.problem() + "); pass --allow-download or --tokenizer PATH");
        }
        if (model.revision() != null) {
            throw new TokenizerUnavailableException("Tokenizer " + name + " is not in the local HuggingFace cache ("
                    + lookup.problem() + ") and only the main revision can be downloaded; download it yourself "
                    + "(huggingface-cli download " + model.repoId() + " tokenizer.json --revision "
                    + model.revision() + ") or pass --tokenizer PATH");
        }
        try {
            DjlTokenizer downloaded = DjlTokenizer.download(model.repoId(), "hf:" + model.repoId());
            HuggingFaceCache.Lookup after = HuggingFaceCache.locate(hub, model.repoId(), null);
            if (!after.found()) return downloaded; // cached elsewhere: the id cannot name the commit
            downloaded.close();
            Path file = after.snapshot().tokenizerJson();
            return withJavaBpeIfLlama(DjlTokenizer.load(file, "hf:" + model.repoId() + "@" + after.snapshot().commit()),
                    file);
        } catch (IOException | RuntimeException e) {
            throw new TokenizerUnavailableException("Cannot download tokenizer " + model.repoId() + " from the "
                    + "HuggingFace hub: " + e.getMessage() + "; download its tokenizer.json yourself and pass "
                    + "--tokenizer PATH", e);
        }
    }

    static Tokenizer loadBuiltInLlama2(ClassLoader resources) {
        // the library's copy reads the resource again if a text ever needs it: the 1.8 MB file is not kept for that
        Supplier<Tokenizer> library = () -> {
            Path file = TokenizerCache.extract(readBuiltInLlama2(resources));
            try {
                return DjlTokenizer.load(file, BuiltInLlama2.DISPLAY_NAME);
            } catch (IOException | RuntimeException e) {
                throw new TokenizerUnavailableException("Cannot load the built-in Llama-2 tokenizer from " + file
                        + ": " + e.getMessage(), e);
            }
        };
        // in Java, with the library loaded only if a text needs it (rarely, if ever, in a run)
        Optional<LlamaBpeModel> model = llamaModel(readBuiltInLlama2(resources));
        if (model.isPresent()) return new LlamaBpeTokenizer(model.get(), memoized(library), BuiltInLlama2.DISPLAY_NAME);
        return library.get();
    }

    private static byte[] readBuiltInLlama2(ClassLoader resources) {
        try (InputStream in = resources.getResourceAsStream(BuiltInLlama2.RESOURCE)) {
            if (in == null) throw new TokenizerUnavailableException(BuiltInLlama2.UNAVAILABLE_MESSAGE);
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read resource " + BuiltInLlama2.RESOURCE, e);
        }
    }

    /** A Llama-2-shaped tokenizer.json runs in Java; others, and this one's leftovers, in the library. */
    private static Tokenizer withJavaBpeIfLlama(DjlTokenizer library, Path file) {
        try {
            if (Files.size(file) > JAVA_BPE_MAX_FILE_BYTES) return library;
            return llamaModel(Files.readAllBytes(file))
                    .<Tokenizer>map(model -> new LlamaBpeTokenizer(model, () -> library, library.id()))
                    .orElse(library);
        } catch (IOException e) {
            return library; // it loaded a moment ago: stay with the library
        }
    }

    private static Optional<LlamaBpeModel> llamaModel(byte[] json) {
        return LlamaBpeModel.of(json);
    }

    private static <T> Supplier<T> memoized(Supplier<T> supplier) {
        return new Supplier<>() {
            private volatile T value;

            @Override
            public synchronized T get() {
                if (value == null) value = supplier.get();
                return value;
            }
        };
    }
}

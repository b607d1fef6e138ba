package io.llmperf4j.tokenize;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;

/**
 * Which tokenizer a user asked for ({@code --tokenizer SPEC}), parsed but not loaded; {@link Tokenizers#resolve}
 * loads it. The accepted forms ({@link #FORMS}):
 * <ul>
 *   <li>{@code llama-2}: the built-in Llama-2 tokenizer llmperf counts with (the default);</li>
 *   <li>a path to a HuggingFace {@code tokenizer.json}, or to a folder holding one;</li>
 *   <li>{@code ORG/NAME} or {@code ORG/NAME@REVISION} (optionally written {@code hf:ORG/NAME}): a HuggingFace model id,
 *       read from the local HuggingFace cache;</li>
 *   <li>{@code cl100k_base}, {@code o200k_base}, {@code p50k_base}, {@code p50k_edit}, {@code r50k_base} (optionally
 *       {@code jtokkit:NAME}): an OpenAI encoding, run by jtokkit;</li>
 *   <li>{@code server}: no client-side tokenizer; counts come from the server's usage block.</li>
 * </ul>
 * An existing file or folder wins over a model id of the same spelling.
 */
public sealed interface TokenizerSpec {
    String FORMS = "llama-2 (built in, the default); PATH to a tokenizer.json or to a folder holding one; "
            + "ORG/NAME[@REVISION], a HuggingFace model id from the local HuggingFace cache; "
            + String.join(", ", JtokkitTokenizer.NAMES) + " (OpenAI encodings, via jtokkit); "
            + "server (use the server's usage counts)";

    /** The built-in Llama-2 tokenizer. */
    record BuiltInLlama2() implements TokenizerSpec {
        public static final String NAME = "llama-2";

        @Override
        public String toString() {
            return NAME;
        }
    }

    /** A tokenizer.json file, or a folder holding one. */
    record LocalFile(Path path) implements TokenizerSpec {
        public LocalFile {
            Objects.requireNonNull(path, "path");
        }

        @Override
        public String toString() {
            return path.toString();
        }
    }

    /**
     * A HuggingFace model id.
     *
     * @param repoId   {@code ORG/NAME}
     * @param revision a branch, tag or commit; {@code null} for {@code main}
     */
    record HuggingFace(String repoId, String revision) implements TokenizerSpec {
        public HuggingFace {
            Objects.requireNonNull(repoId, "repoId");
        }

        @Override
        public String toString() {
            return "hf:" + repoId + (revision == null ? "" : "@" + revision);
        }
    }

    /** An OpenAI encoding by its tiktoken name, e.g. {@code cl100k_base}. */
    record Jtokkit(String encoding) implements TokenizerSpec {
        public Jtokkit {
            if (!JtokkitTokenizer.NAMES.contains(encoding)) {
                throw new IllegalArgumentException("Unknown jtokkit encoding '" + encoding + "'; use one of "
                        + String.join(", ", JtokkitTokenizer.NAMES));
            }
        }

        @Override
        public String toString() {
            return JtokkitTokenizer.ID_PREFIX + encoding;
        }
    }

    /** Token counts from the server's usage block ({@link ServerUsageCounting}). */
    record Server() implements TokenizerSpec {
        @Override
        public String toString() {
            return ServerUsageCounting.SPEC;
        }
    }

    /**
     * Parses a {@code --tokenizer} value. Looks at the file system only to tell a path from a model id.
     *
     * @throws IllegalArgumentException quoting the value and listing {@link #FORMS}
     */
    static TokenizerSpec parse(String spec) {
        String value = spec == null ? "" : spec.strip();
        if (value.isEmpty()) throw unknown(spec, "it is empty");
        String lower = value.toLowerCase(Locale.ROOT);
        if (lower.equals("llama-2") || lower.equals("llama2")) return new BuiltInLlama2();
        if (lower.equals(ServerUsageCounting.SPEC)) return new Server();
        if (lower.startsWith(JtokkitTokenizer.ID_PREFIX)) return new Jtokkit(lower.substring(JtokkitTokenizer.ID_PREFIX.length()));
        if (JtokkitTokenizer.NAMES.contains(lower)) return new Jtokkit(lower);
        if (lower.startsWith("hf:")) {
            Matcher id = HuggingFaceCache.MODEL_ID.matcher(value.substring(3));
            if (!id.matches()) throw unknown(spec, "after 'hf:' comes a model id ORG/NAME[@REVISION]");
            return new HuggingFace(id.group(1), id.group(2));
        }
        Path path = Path.of(expandHome(value));
        if (Files.exists(path)) return new LocalFile(path);
        Matcher id = HuggingFaceCache.MODEL_ID.matcher(value);
        if (id.matches() && !lower.endsWith(".json")) return new HuggingFace(id.group(1), id.group(2));
        if (looksLikePath(value)) return new LocalFile(path);
        throw unknown(spec, "it is no built-in name, no existing file and no ORG/NAME model id");
    }

    private static boolean looksLikePath(String value) {
        return value.contains("/") || value.contains("\\") || value.startsWith(".") || value.startsWith("~")
                || value.toLowerCase(Locale.ROOT).endsWith(".json");
    }

    private static String expandHome(String value) {
        if (value.equals("~") || value.startsWith("~/")) return System.getProperty("user.home") + value.substring(1);
        return value;
    }

    private static IllegalArgumentException unknown(String spec, String why) {
        return new IllegalArgumentException("Unknown tokenizer '" + spec + "' (" + why + "). Use one of: " + FORMS);
    }
}

package io.llmperf4j.datasets;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * Lines of text prompts are cut from, as Python's {@code readlines()} gives them: each line keeps its
 * {@code "\n"}, the last one may lack it. Immutable.
 *
 * <p>{@link #id()} and {@link #sha256()} let results record exactly which text was used.
 */
public final class Corpus {
    private final String id;
    private final String description;
    private final List<String> lines;
    private final String sha256;

    private Corpus(String id, String description, List<String> lines) {
        this.id = Objects.requireNonNull(id, "id");
        this.description = Objects.requireNonNull(description, "description");
        this.lines = List.copyOf(lines);
        this.sha256 = sha256Hex(String.join("", this.lines).getBytes(StandardCharsets.UTF_8));
    }

    /** A corpus from lines already split as {@code readlines()} would. */
    public static Corpus of(String id, String description, List<String> lines) {
        if (lines.isEmpty()) throw new IllegalArgumentException("Corpus " + id + " has no lines");
        return new Corpus(id, description, lines);
    }

    /** The lines of a UTF-8 text file; its id is the file's absolute path. */
    public static Corpus fromFile(Path file) {
        Path absolute = file.toAbsolutePath().normalize();
        List<String> lines = readLines(absolute);
        return new Corpus(absolute.toString(), "text file " + absolute + " (" + lines.size() + " lines)", lines);
    }

    /**
     * The built-in corpus: {@value DefaultVerse#LINE_COUNT} lines of generated English-like verse standing in for
     * llmperf's {@code sonnet.txt} (Shakespeare's sonnets, which cannot be shipped here). The same on every machine.
     */
    public static Corpus defaultCorpus() {
        return DefaultVerse.CORPUS;
    }

    /**
     * Python's {@code open(file).readlines()} in UTF-8: universal newlines ({@code "\r\n"} and {@code "\r"} read as
     * {@code "\n"}), every line keeps its {@code "\n"}, the last line may lack it.
     *
     * @throws IllegalArgumentException naming the file when it is missing, not a file, not UTF-8 or holds no text
     * @throws UncheckedIOException naming the file when it cannot be read
     */
    public static List<String> readLines(Path file) {
        if (!Files.exists(file)) throw new IllegalArgumentException("Corpus file " + file + " does not exist");
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException("Corpus file " + file + " is not a regular file");
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read corpus file " + file + ": " + e.getMessage(), e);
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("Corpus file " + file + " is not valid UTF-8 text", e);
        }
        if (text.isBlank()) throw new IllegalArgumentException("Corpus file " + file + " is empty (it holds no text)");
        return splitLines(text.replace("\r\n", "\n").replace('\r', '\n'));
    }

    /** Splits after every {@code "\n"}, keeping it; a last line without one is kept too. */
    static List<String> splitLines(String text) {
        List<String> lines = new ArrayList<>();
        int start = 0;
        for (int newline; (newline = text.indexOf('\n', start)) >= 0; start = newline + 1) {
            lines.add(text.substring(start, newline + 1));
        }
        if (start < text.length()) lines.add(text.substring(start));
        return lines;
    }

    /** Stable identifier: the absolute file path, or the name of a built-in corpus. */
    public String id() {
        return id;
    }

    /** One line for humans and results files. */
    public String description() {
        return description;
    }

    /** The lines, unmodifiable, in file order. */
    public List<String> lines() {
        return lines;
    }

    /** Lowercase hex SHA-256 of the lines joined back together in UTF-8 (the file's digest for "\n" files). */
    public String sha256() {
        return sha256;
    }

    @Override
    public String toString() {
        return "Corpus[" + id + ", " + lines.size() + " lines, sha256 " + sha256 + "]";
    }

    private static String sha256Hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lacks SHA-256", e);
        }
    }
}

package io.llmperf4j.tokenize;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Extracts classpath tokenizers to files, since DJL loads only from a path. Content-addressed, so different
 * builds never clash, and written to a temporary file then moved into place, so concurrent processes never read a
 * half-written file.
 */
final class TokenizerCache {
    private static final int DIGEST_PREFIX_HEX_CHARS = 16;

    private TokenizerCache() {
    }

    /** Returns {@code ${java.io.tmpdir}/llmperf4j-tokenizers/<sha256 prefix>/tokenizer.json} holding {@code json}. */
    static Path extract(byte[] json) {
        return extract(json, Path.of(System.getProperty("java.io.tmpdir"), "llmperf4j-tokenizers"));
    }

    static Path extract(byte[] json, Path cacheRoot) {
        String digest = sha256Hex(json);
        Path dir = cacheRoot.resolve(digest.substring(0, DIGEST_PREFIX_HEX_CHARS));
        try {
            return extractInto(json, digest, dir);
        } catch (IOException shared) {
            // e.g. another user owns the shared cache folder: use a private one for this process
            try {
                Path privateDir = Files.createTempDirectory("llmperf4j-tokenizer");
                privateDir.toFile().deleteOnExit();
                Path file = extractInto(json, digest, privateDir);
                file.toFile().deleteOnExit();
                return file;
            } catch (IOException e) {
                e.addSuppressed(shared);
                throw new UncheckedIOException("cannot extract the tokenizer to " + dir + " nor to a temporary folder", e);
            }
        }
    }

    private static Path extractInto(byte[] json, String digest, Path dir) throws IOException {
        Path file = dir.resolve(Tokenizers.TOKENIZER_JSON);
        if (Files.isRegularFile(file) && sha256Hex(Files.readAllBytes(file)).equals(digest)) return file;
        Files.createDirectories(dir);
        Path temp = Files.createTempFile(dir, "tokenizer", ".json.tmp");
        try {
            Files.write(temp, json);
            makeWorldReadable(temp); // public data; lets other users reuse the cached copy
            try {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
        return file;
    }

    private static void makeWorldReadable(Path file) {
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        } catch (UnsupportedOperationException | IOException e) {
            // not a POSIX file system: the default permissions are fine
        }
    }

    static String sha256Hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lacks SHA-256", e);
        }
    }
}

package io.llmperf4j.distributed;

import io.llmperf4j.model.disk.PrivateUserFolder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The coordinator's {@code --ca-cert} text as the PEM file a worker's client reads: in a folder of the temporary
 * folder only this user can write, {@code <tmp>/llmperf4j-ca-<user>/<digest>.pem}, so a CA another local user
 * planted under a well-known name is never trusted. An existing file is used only when its bytes are the
 * certificates'; otherwise it is rewritten. The client reads the file once, when it is built, so files not used for
 * {@value #KEPT_DAYS} day are removed when another is written: distinct CAs (every test run makes its own) do not pile
 * up. When the per-user folder's name is taken by someone else, a fresh private folder is used and removed at exit.
 */
final class TrustedCertificatesFile {
    static final String FOLDER_PREFIX = "llmperf4j-ca-";
    static final int KEPT_DAYS = 1;

    private TrustedCertificatesFile() {
    }

    /**
     * The file holding {@code pem} in this user's private folder of {@code java.io.tmpdir}.
     *
     * @throws UncheckedIOException when it cannot be written
     */
    static Path of(String pem) {
        return of(Path.of(System.getProperty("java.io.tmpdir")), System.getProperty("user.name", "user"), pem);
    }

    static Path of(Path tempRoot, String user, String pem) {
        try {
            byte[] bytes = pem.getBytes(StandardCharsets.UTF_8);
            Path folder = privateFolder(tempRoot, user);
            Path file = folder.resolve(HexFormat.of().formatHex(sha256(bytes)).substring(0, 16) + ".pem");
            if (holds(file, bytes)) {
                Files.setLastModifiedTime(file, FileTime.from(Instant.now())); // in use: not removed as stale
                return file;
            }
            removeStale(folder);
            Path partial = Files.createTempFile(folder, "ca-", ".partial");
            Files.write(partial, bytes);
            Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            if (!PrivateUserFolder.isPerUser(folder, FOLDER_PREFIX, user)) file.toFile().deleteOnExit();
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the coordinator's --ca-cert to a private temporary file: "
                    + e.getMessage(), e);
        }
    }

    /** True when {@code file} is a regular file (not a link) with exactly {@code bytes}. */
    private static boolean holds(Path file, byte[] bytes) throws IOException {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) return false;
        return Files.size(file) == bytes.length && Arrays.equals(Files.readAllBytes(file), bytes);
    }

    /**
     * {@code <tempRoot>/llmperf4j-ca-<user>}, owner-only ({@link PrivateUserFolder}); a fresh private folder, removed
     * at exit, when that name is not ours.
     */
    private static Path privateFolder(Path tempRoot, String user) throws IOException {
        Path folder = PrivateUserFolder.create(tempRoot, FOLDER_PREFIX, user);
        if (!PrivateUserFolder.isPerUser(folder, FOLDER_PREFIX, user)) {
            folder.toFile().deleteOnExit(); // after its files, which are registered later
        }
        return folder;
    }

    /** Removes the certificate files not used for {@value #KEPT_DAYS} day. */
    private static void removeStale(Path folder) throws IOException {
        Instant cutoff = Instant.now().minus(Duration.ofDays(KEPT_DAYS));
        try (DirectoryStream<Path> files = Files.newDirectoryStream(folder, "*.{pem,partial}")) {
            for (Path file : files) {
                try {
                    if (Files.getLastModifiedTime(file, LinkOption.NOFOLLOW_LINKS).toInstant().isBefore(cutoff)) {
                        Files.deleteIfExists(file);
                    }
                } catch (IOException e) {
                    // another process of ours removed it first
                }
            }
        }
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e); // every JDK has SHA-256
        }
    }
}

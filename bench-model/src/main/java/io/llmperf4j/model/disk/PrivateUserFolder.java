package io.llmperf4j.model.disk;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Set;

/**
 * A folder in the shared temporary folder that only this user can write, so what we put there (llama.cpp's native
 * library, the generated model) cannot be planted or swapped by another local user: {@code <tempRoot>/<prefix><user>},
 * created owner-only ({@code rwx------}), or, when that name exists and is not a real directory of ours, a fresh
 * private folder {@code <tempRoot>/<prefix><random>}. The temporary folder itself is never created. Used for
 * llama.cpp's native library and the tiny model (bench-llama) and a worker's trusted certificates (bench-distributed).
 */
public final class PrivateUserFolder {
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    private PrivateUserFolder() {
    }

    /**
     * The per-user folder, or a fresh private one when the per-user name is taken by someone else.
     *
     * @throws NoSuchFileException when {@code tempRoot} is not a directory
     * @throws IOException         when no folder can be created
     */
    public static Path create(Path tempRoot, String prefix, String user) throws IOException {
        if (!Files.isDirectory(tempRoot)) {
            throw new NoSuchFileException(tempRoot.toString(), null,
                    "the temporary folder (java.io.tmpdir) does not exist");
        }
        Path folder = tempRoot.resolve(prefix + safeName(user));
        return isOwn(folder) ? folder : Files.createTempDirectory(tempRoot, prefix); // owner-only on POSIX
    }

    /** True for the per-user folder's name when it is the folder {@link #create} made fresh for the user. */
    public static boolean isPerUser(Path folder, String prefix, String user) {
        return folder.getFileName().toString().equals(prefix + safeName(user));
    }

    /**
     * Creates the folder owner-only if absent; true when it is a real directory (not a link) owned by us, made
     * owner-only if it was not.
     */
    private static boolean isOwn(Path folder) {
        try {
            createOwnerOnlyDirectory(folder);
            return true;
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) return false;
            try {
                Path probe = Files.createTempFile(folder, ".owner-check", ".tmp"); // owned by us, whoever we are
                try {
                    if (!Files.getOwner(folder, LinkOption.NOFOLLOW_LINKS).equals(Files.getOwner(probe))) return false;
                } finally {
                    Files.delete(probe);
                }
                PosixFileAttributeView posix = Files.getFileAttributeView(folder, PosixFileAttributeView.class,
                        LinkOption.NOFOLLOW_LINKS);
                if (posix != null && !posix.readAttributes().permissions().equals(OWNER_ONLY)) {
                    posix.setPermissions(OWNER_ONLY);
                }
                return true;
            } catch (IOException notOurs) {
                return false;
            }
        } catch (IOException e) {
            return false;
        }
    }

    /** Creates {@code folder} (its parent must exist), owner-only where the file system has POSIX permissions. */
    public static void createOwnerOnlyDirectory(Path folder) throws IOException {
        if (Files.getFileStore(folder.getParent()).supportsFileAttributeView(PosixFileAttributeView.class)) {
            Files.createDirectory(folder, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } else {
            Files.createDirectory(folder);
        }
    }

    /** A user name as part of one path segment (it follows a prefix, so dots are harmless). */
    public static String safeName(String user) {
        String safe = user.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9._-]", "_");
        return safe.isEmpty() ? "user" : safe;
    }
}

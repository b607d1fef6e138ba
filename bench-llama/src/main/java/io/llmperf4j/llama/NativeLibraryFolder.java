package io.llmperf4j.llama;

import io.llmperf4j.model.disk.PrivateUserFolder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * A folder of our own for llama.cpp's native library, so that loading it never touches the user's files.
 *
 * <p>de.kherud:llama's loader (4.2.0, {@code LlamaLoader.initialize}, run when {@code LlamaModel} is first used)
 * first deletes every entry of its folder whose name starts with {@code llama} or {@code jllama} (meant for stale
 * {@code jllama.dll} copies on Windows), then extracts {@code libjllama} there. Its folder is the system property
 * {@value #PROPERTY}, else {@code java.io.tmpdir}: the shared temporary folder, where it deleted a user's
 * {@code llama-notes.txt}. Unless that property is already set, {@link #prepare()} sets it to
 * {@code ${java.io.tmpdir}/llmperf4j-llama-native-<user>/<pid>}: created by us, owner-only, one per process (so one
 * process's cleanup never deletes a library another process is loading). The process folder is deleted when the
 * JVM exits; folders left by processes that died (kill -9, or a Windows DLL that could not be deleted on exit) are
 * removed by the next process. When the per-user folder belongs to someone else, a fresh private temporary folder
 * is used instead.
 */
final class NativeLibraryFolder {
    /** The binding's system property naming the folder its loader cleans and extracts into. */
    static final String PROPERTY = "de.kherud.llama.tmpdir";
    static final String USER_FOLDER_PREFIX = "llmperf4j-llama-native-";

    private NativeLibraryFolder() {
    }

    /**
     * Points the binding's loader at a private folder unless {@value #PROPERTY} is set; call before the first use
     * of {@code LlamaModel}. Idempotent.
     *
     * @throws UncheckedIOException when no private folder can be created (the shared folder is never a fallback)
     */
    static synchronized void prepare() {
        if (System.getProperty(PROPERTY) != null) return;
        Path tempRoot = Path.of(System.getProperty("java.io.tmpdir"));
        Path folder;
        try {
            folder = create(tempRoot, System.getProperty("user.name", "user"), ProcessHandle.current().pid());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a private folder for llama.cpp's native library under "
                    + tempRoot + ": " + e.getMessage(), e);
        }
        // registered before the loader registers its extracted files, so deleted after them (reverse order)
        folder.toFile().deleteOnExit();
        System.setProperty(PROPERTY, folder.toString());
    }

    /**
     * Creates (or empties) {@code <tempRoot>/llmperf4j-llama-native-<user>/<pid>} and removes the folders there of
     * processes no longer running; or, when the user folder is not ours, a new private folder in {@code tempRoot}
     * ({@link PrivateUserFolder}).
     */
    static Path create(Path tempRoot, String user, long pid) throws IOException {
        Path userFolder = PrivateUserFolder.create(tempRoot, USER_FOLDER_PREFIX, user);
        if (!PrivateUserFolder.isPerUser(userFolder, USER_FOLDER_PREFIX, user)) return userFolder;
        removeFoldersOfEndedProcesses(userFolder, pid);
        Path folder = userFolder.resolve(Long.toString(pid));
        if (Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
            emptyFolder(folder); // left by an earlier process with our pid
        } else {
            PrivateUserFolder.createOwnerOnlyDirectory(folder);
        }
        return folder;
    }

    /** Removes the folders named by the id of a process that is no longer running (only ours live here). */
    private static void removeFoldersOfEndedProcesses(Path userFolder, long ownPid) throws IOException {
        try (DirectoryStream<Path> folders = Files.newDirectoryStream(userFolder)) {
            for (Path folder : folders) {
                String name = folder.getFileName().toString();
                if (!name.matches("[0-9]{1,19}") || !Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) continue;
                long pid = Long.parseLong(name);
                if (pid == ownPid || ProcessHandle.of(pid).isPresent()) continue;
                try {
                    emptyFolder(folder);
                    Files.delete(folder);
                } catch (IOException e) {
                    // e.g. a DLL still mapped on Windows: the next process tries again
                }
            }
        }
    }

    private static void emptyFolder(Path folder) throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(folder)) {
            for (Path file : files) Files.deleteIfExists(file);
        }
    }
}

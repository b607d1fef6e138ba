package io.llmperf4j.model.disk;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ways llmperf4j's files reach the disk, and the one seam where a test puts a full disk under a folder (a test
 * cannot mount a small tmpfs): the folder a file is written in before its rename ({@link #makeFolder}), a file
 * written whole there and renamed into its place ({@link #place}), and the request journal's stream, appended as
 * requests end ({@link #open}).
 */
public interface ResultsDisk {

    /** The operating system's disk: a rename in the same folder, which replaces the target in one step. */
    ResultsDisk SYSTEM = new ResultsDisk() {
        @Override
        public void place(Path staged, Path target) throws IOException {
            Files.move(staged, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }

        @Override
        public OutputStream open(Path file) throws IOException {
            return Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE);
        }

        @Override
        public void makeFolder(Path folder) throws IOException {
            Files.createDirectories(folder);
        }
    };

    /** Moves {@code staged}, written in full, onto {@code target} in one step: the target is whole or absent. */
    void place(Path staged, Path target) throws IOException;

    /** A new (truncated) file to append to, for the journal. */
    OutputStream open(Path file) throws IOException;

    /** Makes {@code folder} and its parents if missing (a full disk or a read-only folder refuses it). */
    void makeFolder(Path folder) throws IOException;

    /** The disk under {@code file}: a test's, when one was put under a folder holding it, else {@link #SYSTEM}. */
    static ResultsDisk of(Path file) {
        Path abs = file.toAbsolutePath().normalize();
        for (Map.Entry<Path, ResultsDisk> e : Overrides.BY_FOLDER.entrySet()) {
            if (abs.startsWith(e.getKey())) return e.getValue();
        }
        return SYSTEM;
    }

    /**
     * Puts {@code disk} under {@code folder} until the returned handle is closed: for tests only (a full disk under
     * one test's folder; other tests' folders in the same JVM keep the system's).
     */
    static AutoCloseable under(Path folder, ResultsDisk disk) {
        Path key = folder.toAbsolutePath().normalize();
        Overrides.BY_FOLDER.put(key, disk);
        return () -> Overrides.BY_FOLDER.remove(key, disk);
    }

    /** Holder of the tests' disks (an interface's fields are public; this class is not). */
    final class Overrides {
        private static final Map<Path, ResultsDisk> BY_FOLDER = new ConcurrentHashMap<>();

        private Overrides() {
        }
    }
}

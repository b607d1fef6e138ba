package io.llmperf4j.cli;

import io.llmperf4j.model.disk.ResultsDisk;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A disk with {@code free} bytes left under a results folder (a test cannot mount a small tmpfs): the journal's
 * stream writes up to the last free byte, then fails with ENOSPC, as a FileOutputStream on a full disk does; a file
 * written whole beside its place is cut to the bytes that were free and fails with ENOSPC before its rename (the
 * disk filled while it was written).
 */
final class FullDisk implements ResultsDisk {
    static final String ENOSPC = "No space left on device";
    private long free;
    /** The disk fills up as a file whose path ends so is written (null: only the bytes count). */
    private final String fullAt;
    /** A folder whose name is this cannot be made (no block left for it), or null. */
    private final String noFolder;

    FullDisk(long freeBytes) {
        this(freeBytes, null, null);
    }

    private FullDisk(long freeBytes, String fullAt, String noFolder) {
        this.free = freeBytes;
        this.fullAt = fullAt;
        this.noFolder = noFolder;
    }

    /**
     * A disk with room for the files already begun (the journal appends) but none for a new folder named {@code name}:
     * mkdir fails with ENOSPC as it does on a full disk.
     */
    static FullDisk noRoomForFolder(String name) {
        return new FullDisk(Long.MAX_VALUE, null, name);
    }

    /**
     * A disk that fills up as the first file whose path ends with {@code suffix} is written, whatever its size
     * ({@code "full/x.html"}: x.html in the folder full, not in its level folders).
     */
    static FullDisk fullAt(String suffix) {
        return new FullDisk(Long.MAX_VALUE, suffix, null);
    }

    /** Puts this disk under {@code folder} until closed. */
    AutoCloseable under(Path folder) {
        return ResultsDisk.under(folder, this);
    }

    @Override
    public synchronized void place(Path staged, Path target) throws IOException {
        long size = Files.size(staged);
        if (fullAt != null && target.toString().endsWith(fullAt)) free = size / 2;
        if (size > free) {
            try (FileChannel channel = FileChannel.open(staged, StandardOpenOption.WRITE)) {
                channel.truncate(free);
            }
            // as FileOutputStream says it while the file is written; its bytes are freed when the product deletes it
            throw new IOException(ENOSPC);
        }
        free -= size;
        SYSTEM.place(staged, target);
    }

    @Override
    public void makeFolder(Path folder) throws IOException {
        if (noFolder != null && folder.getFileName().toString().equals(noFolder) && !Files.isDirectory(folder)) {
            throw new FileSystemException(folder.toString(), null, ENOSPC); // as mkdir(2)'s ENOSPC reads in Java
        }
        SYSTEM.makeFolder(folder);
    }

    @Override
    public OutputStream open(Path file) throws IOException {
        return new FilterOutputStream(SYSTEM.open(file)) {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                synchronized (FullDisk.this) {
                    int fits = (int) Math.min(len, free);
                    out.write(b, off, fits);
                    out.flush(); // the cut bytes reach the file, as a real short write's do
                    free -= fits;
                    if (fits < len) throw new IOException(ENOSPC);
                }
            }
        };
    }
}

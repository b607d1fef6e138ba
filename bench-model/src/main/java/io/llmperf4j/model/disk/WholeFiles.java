package io.llmperf4j.model.disk;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The one rule by which llmperf4j writes a file whole or not at all: written into {@value #STAGING} in its folder,
 * then renamed into place ({@link ResultsDisk#place}), so a full disk or a kill mid-write leaves the earlier file (or
 * none), never a cut or empty one under its name. Every file llmperf4j writes goes through it except the request
 * journal, which is appended as requests end. Here, below datasets and bench-report, so both use it.
 */
public final class WholeFiles {
    /**
     * Where files are written before each is renamed into its folder, whole: removed after every write, and by the
     * next run when a killed one left it. Never a result: its name does not end as one does.
     */
    public static final String STAGING = ".llmperf4j-writing";

    /** Writes files into the folder it is given and returns them. */
    @FunctionalInterface
    public interface Writer {
        List<Path> writeInto(Path folder) throws IOException;
    }

    /** Writes one file's content into the path it is given. */
    @FunctionalInterface
    public interface Content {
        void writeTo(Path file) throws IOException;
    }

    private WholeFiles() {
    }

    /**
     * {@code writer} writes into {@value #STAGING} in {@code dir} (created if missing) and each file it returns is
     * renamed into the same place in {@code dir}, whole.
     *
     * @return the files, in {@code dir}
     * @throws ResultsNotWrittenException naming the files left unplaced ({@link ResultsNotWrittenException#failed},
     *                                    empty when the writer failed before any was begun) and those kept; or the
     *                                    staging folder, when it could not be made
     */
    public static List<Path> write(Path dir, Writer writer) throws IOException {
        ResultsDisk.of(dir).makeFolder(dir);
        Path staging = dir.resolve(STAGING);
        List<Path> written = new ArrayList<>();
        IOException failure = null;
        try {
            try {
                ResultsDisk.of(staging).makeFolder(staging);
            } catch (IOException e) {
                failure = e;
                throw ResultsNotWrittenException.folderNotMade(staging, written, e);
            }
            for (Path staged : writer.writeInto(staging)) {
                written.add(place(staged, staging, dir));
            }
            return written;
        } catch (ResultsNotWrittenException e) {
            throw e;
        } catch (IOException e) {
            failure = e;
            throw new ResultsNotWrittenException(unplaced(staging), written, e);
        } finally {
            deleteTree(staging, failure);
        }
    }

    /**
     * Writes {@code content} to {@code target} whole (its folder created if missing).
     *
     * @throws ResultsNotWrittenException naming the file (or the staging folder that could not be made)
     */
    public static Path writeOne(Path target, Content content) throws IOException {
        Path file = target.toAbsolutePath().normalize();
        String name = file.getFileName().toString();
        try {
            write(file.getParent(), into -> {
                Path staged = into.resolve(name);
                content.writeTo(staged);
                return List.of(staged);
            });
        } catch (ResultsNotWrittenException e) {
            if (e.folderNotMade() != null) throw e;
            throw new ResultsNotWrittenException(List.of(name), List.of(), (IOException) e.getCause());
        }
        return target;
    }

    /** Renames a file written whole in {@code staging} to the same place in {@code dir}. */
    private static Path place(Path staged, Path staging, Path dir) throws IOException {
        if (!staged.startsWith(staging)) return staged; // a writer that wrote in place
        Path target = dir.resolve(staging.relativize(staged).toString());
        Files.createDirectories(target.getParent());
        ResultsDisk.of(target).place(staged, target);
        return target;
    }

    /** The names of the files left in {@code staging}: those a failure left unplaced. */
    private static List<String> unplaced(Path staging) {
        if (!Files.isDirectory(staging)) return List.of();
        try (Stream<Path> walk = Files.walk(staging)) {
            return walk.filter(Files::isRegularFile).map(p -> staging.relativize(p).toString()).sorted().toList();
        } catch (IOException | UncheckedIOException e) {
            return List.of();
        }
    }

    private static void deleteTree(Path tree, IOException failure) {
        if (!Files.exists(tree)) return;
        try (Stream<Path> walk = Files.walk(tree)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        } catch (IOException | UncheckedIOException e) {
            if (failure != null) failure.addSuppressed(e); // a staging folder left behind is removed by the next run
        }
    }
}

package io.llmperf4j.run;

import io.llmperf4j.report.jsonl.RequestJournal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The result files a run wrote into its folder, listed in {@value #FILE_NAME} when it ends, so that the next run's
 * {@code --overwrite} removes exactly them. Without the list, {@code --overwrite} replaced only the files of the same
 * name: a rerun with other token lengths left the earlier run's {@code <model>_550_6_*} files beside its own, and
 * {@code report} and {@code compare} then refused the folder (two summaries). Only result files (the kinds a run
 * writes, .json, .jsonl, .csv and .html) written after the run took the folder are listed, so a redirected
 * {@code stderr.txt}, notes and the user's own files are never removed.
 */
final class RunFiles {
    static final String FILE_NAME = ".llmperf4j-files";
    /**
     * Where {@code --overwrite} keeps the earlier run's files while the new run measures: deleted when it wrote a
     * result, moved back when it wrote none. Never counted as results.
     */
    static final String ASIDE = ".llmperf4j-replaced";
    /** A sweep's or a search's levels are one folder down; room for one more. */
    private static final int DEPTH = 3;

    private RunFiles() {
    }

    /** Whether {@code file} is of a kind a run writes (and a folder holding one holds results). */
    static boolean isResult(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        return name.endsWith(".json") || name.endsWith(".jsonl") || name.endsWith(".csv") || name.endsWith(".html");
    }

    /**
     * Lists the result files in {@code dir} modified at or after {@code since} (the run's start on the file system's
     * clock); writes no list when there are none, so a run that wrote nothing leaves its folder empty.
     */
    static void record(Path dir, FileTime since) throws IOException {
        List<String> lines = new ArrayList<>();
        for (Path file : resultFiles(dir)) {
            if (Files.getLastModifiedTime(file).compareTo(since) >= 0) {
                lines.add(dir.relativize(file).toString());
            }
        }
        if (!lines.isEmpty()) Files.write(dir.resolve(FILE_NAME), lines, StandardCharsets.UTF_8);
    }

    /**
     * Removes the files the earlier run listed and this run did not rewrite (modified before {@code since}; result
     * files inside {@code dir} only, whatever the list says), then the folders that leaves empty, and the list.
     *
     * @return how many files were removed
     */
    static int removeEarlier(Path dir, FileTime since) throws IOException {
        Path list = dir.resolve(FILE_NAME);
        if (!Files.isRegularFile(list)) return 0;
        Path root = dir.toAbsolutePath().normalize();
        int removed = 0;
        TreeSet<Path> folders = new TreeSet<>();
        for (Path file : listed(root, list)) {
            if (since != null && Files.getLastModifiedTime(file).compareTo(since) >= 0) continue; // this run's
            Files.delete(file);
            removed++;
            for (Path p = file.getParent(); !p.equals(root); p = p.getParent()) folders.add(p);
        }
        removeEmptyFolders(folders);
        Files.delete(list);
        return removed;
    }

    /**
     * Moves the files the earlier run listed, and its list, into {@value #ASIDE} (same relative paths), then
     * removes the folders that leaves empty. An {@value #ASIDE} left by a killed run that had results of its own
     * goes first.
     */
    static void moveAside(Path dir) throws IOException {
        Path root = dir.toAbsolutePath().normalize();
        Path aside = root.resolve(ASIDE);
        deleteTree(aside);
        Path list = root.resolve(FILE_NAME);
        if (!Files.isRegularFile(list)) return;
        TreeSet<Path> folders = new TreeSet<>();
        for (Path file : listed(root, list)) {
            Path target = aside.resolve(root.relativize(file).toString());
            Files.createDirectories(target.getParent());
            Files.move(file, target, StandardCopyOption.REPLACE_EXISTING);
            for (Path p = file.getParent(); !p.equals(root); p = p.getParent()) folders.add(p);
        }
        Files.createDirectories(aside);
        Files.move(list, aside.resolve(FILE_NAME), StandardCopyOption.REPLACE_EXISTING);
        removeEmptyFolders(folders);
    }

    /** Moves everything in {@value #ASIDE} back where it was (replacing files of those names), then removes it. */
    static void restoreAside(Path dir) throws IOException {
        Path root = dir.toAbsolutePath().normalize();
        Path aside = root.resolve(ASIDE);
        if (!Files.isDirectory(aside)) return;
        List<Path> files;
        try (Stream<Path> walk = Files.walk(aside)) {
            files = walk.filter(Files::isRegularFile).toList();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        for (Path file : files) {
            Path target = root.resolve(aside.relativize(file).toString());
            Files.createDirectories(target.getParent());
            Files.move(file, target, StandardCopyOption.REPLACE_EXISTING);
        }
        deleteTree(aside);
    }

    /** Deletes {@value #ASIDE}: this run wrote results of its own. */
    static void deleteAside(Path dir) throws IOException {
        deleteTree(dir.toAbsolutePath().normalize().resolve(ASIDE));
    }

    /** Whether a result file with content was written at or after {@code since} (an empty journal does not count). */
    static boolean wroteSince(Path dir, FileTime since) throws IOException {
        for (Path file : resultFiles(dir)) {
            if (Files.getLastModifiedTime(file).compareTo(since) >= 0 && Files.size(file) > 0) return true;
        }
        return false;
    }

    /** Removes the empty result files written at or after {@code since}, and the folders that leaves empty. */
    static void removeEmptySince(Path dir, FileTime since) throws IOException {
        Path root = dir.toAbsolutePath().normalize();
        TreeSet<Path> folders = new TreeSet<>();
        for (Path file : resultFiles(dir)) {
            if (Files.getLastModifiedTime(file).compareTo(since) >= 0 && Files.size(file) == 0) {
                Files.delete(file);
                Path abs = file.toAbsolutePath().normalize();
                for (Path p = abs.getParent(); p.startsWith(root) && !p.equals(root); p = p.getParent()) folders.add(p);
            }
        }
        removeEmptyFolders(folders);
    }

    /**
     * Moves the result files written at or after {@code since} (this run's) into {@code target}, a new folder inside
     * {@code dir}, with the same relative paths, then removes the folders that leaves empty.
     *
     * @return how many files were moved
     */
    static int moveSince(Path dir, FileTime since, Path target) throws IOException {
        Path root = dir.toAbsolutePath().normalize();
        Path into = target.toAbsolutePath().normalize();
        TreeSet<Path> folders = new TreeSet<>();
        int moved = 0;
        for (Path file : resultFiles(dir)) {
            Path abs = file.toAbsolutePath().normalize();
            if (abs.startsWith(into) || Files.getLastModifiedTime(file).compareTo(since) < 0) continue;
            Path to = into.resolve(root.relativize(abs).toString());
            Files.createDirectories(to.getParent());
            Files.move(abs, to);
            moved++;
            for (Path p = abs.getParent(); p.startsWith(root) && !p.equals(root); p = p.getParent()) folders.add(p);
        }
        removeEmptyFolders(folders);
        return moved;
    }

    /** How many records the journals ({@code requests.jsonl}, a sweep's one per level) written since hold. */
    static long journalRecords(Path dir, FileTime since) throws IOException {
        long records = 0;
        for (Path file : resultFiles(dir)) {
            if (!file.getFileName().toString().equals(RequestJournal.FILE_NAME)
                    || Files.getLastModifiedTime(file).compareTo(since) < 0) continue;
            try (Stream<String> lines = Files.lines(file, StandardCharsets.UTF_8)) {
                records += lines.filter(line -> !line.isBlank()).count();
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
        }
        return records;
    }

    /** The files {@code list} names that exist: result files inside {@code root} only, whatever the list says. */
    private static List<Path> listed(Path root, Path list) throws IOException {
        List<Path> files = new ArrayList<>();
        for (String line : Files.readAllLines(list, StandardCharsets.UTF_8)) {
            if (line.isBlank()) continue;
            Path file = root.resolve(line).normalize();
            if (!file.startsWith(root) || file.equals(root) || file.startsWith(root.resolve(ASIDE)) || !isResult(file)
                    || !Files.isRegularFile(file)) continue;
            files.add(file);
        }
        return files;
    }

    private static void removeEmptyFolders(TreeSet<Path> folders) {
        for (Path folder : folders.descendingSet()) { // the deepest first
            try {
                Files.delete(folder);
            } catch (IOException e) {
                // holds files of someone else's, or went already: left as it is
            }
        }
    }

    private static void deleteTree(Path tree) throws IOException {
        if (!Files.exists(tree)) return;
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(tree)) {
            paths = walk.sorted(Comparator.reverseOrder()).toList();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        for (Path p : paths) Files.deleteIfExists(p);
    }

    private static List<Path> resultFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir, DEPTH)) {
            Path aside = dir.resolve(ASIDE);
            return files.filter(Files::isRegularFile).filter(RunFiles::isResult).filter(f -> !f.startsWith(aside))
                    .sorted().toList();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}

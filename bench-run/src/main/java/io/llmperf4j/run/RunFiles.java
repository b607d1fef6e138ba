package io.llmperf4j.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
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
     * Removes the files the earlier run listed (result files inside {@code dir} only, whatever the list says), then
     * the folders that leaves empty, and the list itself.
     *
     * @return how many files were removed
     */
    static int removeEarlier(Path dir) throws IOException {
        Path list = dir.resolve(FILE_NAME);
        if (!Files.isRegularFile(list)) return 0;
        Path root = dir.toAbsolutePath().normalize();
        int removed = 0;
        TreeSet<Path> folders = new TreeSet<>();
        for (String line : Files.readAllLines(list, StandardCharsets.UTF_8)) {
            if (line.isBlank()) continue;
            Path file = root.resolve(line).normalize();
            if (!file.startsWith(root) || file.equals(root) || !isResult(file) || !Files.isRegularFile(file)) continue;
            Files.delete(file);
            removed++;
            for (Path p = file.getParent(); !p.equals(root); p = p.getParent()) folders.add(p);
        }
        for (Path folder : folders.descendingSet()) { // the deepest first
            try {
                Files.delete(folder);
            } catch (DirectoryNotEmptyException | NoSuchFileException e) {
                // holds files of someone else's, or went already: left as it is
            }
        }
        Files.delete(list);
        return removed;
    }

    private static List<Path> resultFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir, DEPTH)) {
            return files.filter(Files::isRegularFile).filter(RunFiles::isResult).sorted().toList();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}

package io.llmperf4j.run;

import io.llmperf4j.report.jsonl.RequestJournal;
import io.llmperf4j.model.disk.WholeFiles;

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
import java.util.regex.Pattern;
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
    /**
     * How a run names the files it writes at the top of its folder: {@code requests.jsonl}, {@code comparison.csv},
     * and {@code <model>_<input tokens>_<output tokens>} followed by one of its files' endings.
     */
    static final Pattern OWN_NAMES = Pattern.compile("requests\\.jsonl|comparison\\.csv|.+_\\d+_\\d+_(summary\\.json"
            + "|individual_responses\\.json|requests\\.csv|llmperf4j_summary\\.json|report\\.html|events\\.csv"
            + "|server_metrics\\.csv|open_loop\\.json|sweep\\.json|sweep\\.csv|iterations\\.csv|jmh\\.json"
            + "|search\\.json|search\\.csv|search\\.html|embeddings\\.csv|embeddings_summary\\.json"
            + "|embeddings_sweep\\.csv)");
    /** The names Python llmperf writes too: never a sign that llmperf4j wrote a folder. */
    private static final Pattern PYTHON_LLMPERF_NAMES = Pattern.compile(
            ".+_\\d+_\\d+_(summary\\.json|individual_responses\\.json)");
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
        // whole or absent: a list cut by a full disk made the next --overwrite leave this run's files behind (QA)
        if (!lines.isEmpty()) {
            WholeFiles.writeOne(dir.resolve(FILE_NAME), f -> Files.write(f, lines, StandardCharsets.UTF_8));
        }
    }

    /**
     * Removes the files the earlier run listed and this run did not rewrite (modified before {@code since}; result
     * files inside {@code dir} only, whatever the list says; with the list missing, empty or cut, the earlier run's
     * files by name, {@link #earlierFiles}), then the folders that leaves empty, and the list.
     *
     * @return how many files were removed
     */
    static int removeEarlier(Path dir, FileTime since) throws IOException {
        Path list = dir.resolve(FILE_NAME);
        Path root = dir.toAbsolutePath().normalize();
        int removed = 0;
        TreeSet<Path> folders = new TreeSet<>();
        for (Path file : earlierFiles(root, since)) {
            if (since != null && Files.getLastModifiedTime(file).compareTo(since) >= 0) continue; // this run's
            Files.delete(file);
            removed++;
            for (Path p = file.getParent(); !p.equals(root); p = p.getParent()) folders.add(p);
        }
        removeEmptyFolders(folders);
        Files.deleteIfExists(list);
        return removed;
    }

    /**
     * Moves the files the earlier run listed, and its list, into {@value #ASIDE} (same relative paths), then
     * removes the folders that leaves empty. With the list missing, empty or cut, the earlier run's files by name
     * modified before {@code since} ({@link #earlierFiles}). An {@value #ASIDE} left by a killed run that had results of its own
     * goes first.
     */
    static void moveAside(Path dir, FileTime since) throws IOException {
        Path root = dir.toAbsolutePath().normalize();
        Path aside = root.resolve(ASIDE);
        deleteTree(aside);
        Path list = root.resolve(FILE_NAME);
        List<Path> earlier = earlierFiles(root, since);
        if (earlier.isEmpty() && !Files.isRegularFile(list)) return;
        TreeSet<Path> folders = new TreeSet<>();
        for (Path file : earlier) {
            Path target = aside.resolve(root.relativize(file).toString());
            Files.createDirectories(target.getParent());
            Files.move(file, target, StandardCopyOption.REPLACE_EXISTING);
            for (Path p = file.getParent(); !p.equals(root); p = p.getParent()) folders.add(p);
        }
        Files.createDirectories(aside);
        if (Files.isRegularFile(list)) Files.move(list, aside.resolve(FILE_NAME), StandardCopyOption.REPLACE_EXISTING);
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

    /** Deletes what a killed run left in {@link WholeFiles#STAGING}: files it was writing, none of them whole. */
    static void deleteStaging(Path dir) throws IOException {
        deleteTree(dir.toAbsolutePath().normalize().resolve(WholeFiles.STAGING));
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
            records += RequestJournal.wholeLines(file); // a cut last line (a full disk) is no record
        }
        return records;
    }

    /**
     * The earlier run's files: those its list names, and, when the list is missing, empty or cut (a full disk, a
     * kill, a run of an older version), also the files named as a run names its own ({@link #OWN_NAMES}) and
     * modified before {@code since} (this run's start; null: any), so a rerun never leaves them beside its own: at the
     * top of {@code root} and in the folders a run writes below it (a sweep's or search's levels, a comparison's
     * models, {@link #runFolders}); only where llmperf4j wrote ({@link #llmperf4jWasHere}). A file of another name
     * (the user's notes, a redirected stderr.txt) is never taken, nor a folder of Python llmperf's alone.
     */
    private static List<Path> earlierFiles(Path root, FileTime since) throws IOException {
        Path list = root.resolve(FILE_NAME);
        List<Path> files = new ArrayList<>(Files.isRegularFile(list) ? listed(root, list) : List.of());
        if (wholeList(list)) return files;
        List<Path> named = new ArrayList<>(llmperf4jWasHere(root, since) ? ownNamed(root) : List.of());
        for (Path folder : runFolders(root, since)) named.addAll(ownNamed(folder));
        for (Path file : named) {
            if (files.contains(file)) continue;
            if (since != null && Files.getLastModifiedTime(file).compareTo(since) >= 0) continue; // this run's
            files.add(file);
        }
        return files;
    }

    /** The files directly in {@code folder} named as a run names its own. */
    private static List<Path> ownNamed(Path folder) throws IOException {
        try (Stream<Path> walk = Files.list(folder)) {
            return walk.filter(Files::isRegularFile).filter(f -> OWN_NAMES.matcher(f.getFileName().toString()).matches())
                    .sorted().toList();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /**
     * The folders below {@code root} (as deep as a run writes) that an earlier llmperf4j run wrote: those holding
     * a file only llmperf4j writes, or a folder that does ({@link #marked}): a sweep's or search's levels, a
     * comparison's models and their levels. Hidden folders and those kept on purpose ({@value
     * ResultsFolder#FAILED_PREFIX}, {@value ResultsFolder#KEPT_PREFIX}: each has its own list, which a whole list
     * would not name either) are not.
     */
    private static List<Path> runFolders(Path root, FileTime since) throws IOException {
        List<Path> folders;
        try (Stream<Path> walk = Files.walk(root, DEPTH - 1)) {
            folders = walk.filter(Files::isDirectory).filter(f -> !f.equals(root))
                    .filter(f -> !keptApart(root.relativize(f)) && !anotherRun(root, f)).sorted().toList();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        List<Path> marked = new ArrayList<>();
        for (Path folder : folders) {
            boolean own = false;
            for (Path f : folders) {
                if (f.startsWith(folder) && marked(f, since)) {
                    own = true;
                    break;
                }
            }
            if (own) marked.add(folder);
        }
        return marked;
    }

    /**
     * Whether {@code folder}, or a folder between it and {@code root}, holds a list of its own: a run's list is
     * written only at its results folder, so that is another run (one the user keeps below this folder), never this
     * run's level, and nothing in it is cleared by name.
     */
    private static boolean anotherRun(Path root, Path folder) {
        for (Path f = folder; f != null && !f.equals(root); f = f.getParent()) {
            if (Files.exists(f.resolve(FILE_NAME))) return true;
        }
        return false;
    }

    /** Whether a folder at {@code relative} below the results folder is hidden or kept apart on purpose. */
    private static boolean keptApart(Path relative) {
        for (Path part : relative) {
            String name = part.toString();
            if (name.startsWith(".") || name.startsWith(ResultsFolder.FAILED_PREFIX)
                    || name.startsWith(ResultsFolder.KEPT_PREFIX)) return true;
        }
        return false;
    }

    /**
     * Whether an earlier llmperf4j run wrote into {@code root}: its list (even empty), or a file only llmperf4j
     * writes, older than {@code since} ({@link #marked}), is there. Python llmperf's files have the same names as
     * ours; in a folder of its alone, none is taken by name.
     */
    private static boolean llmperf4jWasHere(Path root, FileTime since) throws IOException {
        return Files.exists(root.resolve(FILE_NAME)) || marked(root, since);
    }

    /**
     * Whether {@code folder} holds a file only llmperf4j writes (named as a run names its own, but for Python
     * llmperf's {@code _summary.json} and {@code _individual_responses.json}) older than {@code since} (null: any;
     * this run opens its own journal before it sets the earlier files aside).
     */
    private static boolean marked(Path folder, FileTime since) throws IOException {
        List<Path> marks = ownNamed(folder).stream().filter(f -> !PYTHON_LLMPERF_NAMES.matcher(
                f.getFileName().toString()).matches()).toList();
        for (Path mark : marks) {
            if (since == null || Files.getLastModifiedTime(mark).compareTo(since) < 0) return true;
        }
        return false;
    }

    /** Whether the list is there and whole: not empty, ending with its last line's newline. */
    private static boolean wholeList(Path list) throws IOException {
        if (!Files.isRegularFile(list) || Files.size(list) == 0) return false;
        byte[] bytes = Files.readAllBytes(list);
        return bytes[bytes.length - 1] == '\n';
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
            Path staging = dir.resolve(WholeFiles.STAGING);
            return files.filter(Files::isRegularFile).filter(RunFiles::isResult).filter(f -> !f.startsWith(aside))
                    .filter(f -> !f.startsWith(staging)).sorted().toList();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}

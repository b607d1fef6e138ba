package io.llmperf4j.report.output;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * What a results folder holds, told from its files alone, so {@code report} and {@code compare} take any folder
 * token-benchmark wrote: one run, a sweep (a folder per level), JMH-style iterations, or several models compared.
 *
 * @param kind what it is
 * @param dir  the folder
 * @param file the file that told: the summary, {@code <base>_sweep.json}, {@code <base>_iterations.csv} or
 *             {@code comparison.csv}
 */
public record ResultsFolder(Kind kind, Path dir, Path file) {

    /** The kinds of results folder, each with the file that marks it. */
    public enum Kind {
        /** One run: {@code <base>_llmperf4j_summary.json} beside {@code requests.jsonl}. */
        RUN("_llmperf4j_summary.json"),
        /** A load sweep: {@code <base>_sweep.json} and a folder per level. */
        SWEEP(SweepFiles.JSON_SUFFIX),
        /** JMH-style forks and iterations: {@code <base>_iterations.csv} (and {@code <base>_jmh.json}). */
        ITERATIONS(IterationsFile.SUFFIX),
        /** Several models under one load: {@code comparison.csv} and a folder per model. */
        COMPARISON(ComparisonFile.FILE_NAME);

        private final String marker;

        Kind(String marker) {
            this.marker = marker;
        }

        /** How the marking file's name ends. */
        public String marker() {
            return marker;
        }

        /** "sweep", "iterations": the kind in words. */
        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public ResultsFolder {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(file, "file");
    }

    /**
     * What {@code path} is. A folder is a comparison when it has {@code comparison.csv}, else a sweep when it has a
     * {@code *_sweep.json}, else iterations when it has a {@code *_iterations.csv}, else a run when it has a
     * {@code *_llmperf4j_summary.json}. A file is taken for what its name says ({@code *_sweep.json},
     * {@code comparison.csv}, {@code *_iterations.csv}); any other file is a run's (its summary, CSV or journal).
     *
     * @throws IOException when the path does not exist or the folder holds none of these files (the message says
     *                     what was expected)
     */
    public static ResultsFolder detect(Path path) throws IOException {
        if (Files.isRegularFile(path)) {
            String name = path.getFileName().toString();
            Path dir = path.toAbsolutePath().getParent();
            for (Kind kind : List.of(Kind.COMPARISON, Kind.SWEEP, Kind.ITERATIONS)) {
                if (name.endsWith(kind.marker())) return new ResultsFolder(kind, dir, path);
            }
            return new ResultsFolder(Kind.RUN, dir, path);
        }
        if (!Files.isDirectory(path)) {
            throw new IOException("no such results folder or file: " + path);
        }
        List<Path> files;
        try (Stream<Path> list = Files.list(path)) {
            files = list.filter(Files::isRegularFile).sorted().toList();
        }
        // a comparison's or a sweep's folder may hold a run's files too: the whole-run kinds come first
        for (Kind kind : List.of(Kind.COMPARISON, Kind.SWEEP, Kind.ITERATIONS, Kind.RUN)) {
            for (Path f : files) {
                if (f.getFileName().toString().endsWith(kind.marker())) return new ResultsFolder(kind, path, f);
            }
        }
        for (Path f : files) {
            // a run's records alone (a copied CSV, or a run killed before its summary): compare still reads them
            String name = f.getFileName().toString();
            if (name.endsWith("_requests.csv") || name.equals("requests.jsonl")) return new ResultsFolder(Kind.RUN, path, f);
        }
        for (Path f : files) {
            String name = f.getFileName().toString();
            if (name.endsWith("_search.json")) {
                String base = name.substring(0, name.length() - "_search.json".length());
                throw new IOException(path + " is a capacity search's folder: the search writes its own page, "
                        + base + "_search.html, beside " + name + "; give one of its level folders (level_NN_...) "
                        + "for that level's page or to compare it");
            }
        }
        for (Path f : files) {
            String name = f.getFileName().toString();
            // QA: "holds none of llmperf4j's results" of a folder that holds an embeddings run's
            if (name.endsWith("_embeddings_summary.json") || name.endsWith("_embeddings_sweep.csv")) {
                throw new IOException(path + " is an embeddings run's folder (" + name + (name.endsWith(".csv")
                        ? " and a folder per level, each with its *_embeddings_summary.json and *_embeddings.csv"
                        : " and its *_embeddings.csv") + "): report and compare read generation runs only (TTFT, "
                        + "tokens out); an embeddings run's results are those files");
            }
        }
        throw new IOException(path + " holds none of llmperf4j's results: expected a *_llmperf4j_summary.json (a run),"
                + " a *_sweep.json (a sweep), a *_iterations.csv (iterations) or comparison.csv (several models)");
    }

    /** {@code <base>} of the marking file: its name without the marker (empty for {@code comparison.csv}). */
    public String base() {
        String name = file.getFileName().toString();
        return name.endsWith(kind.marker()) ? name.substring(0, name.length() - kind.marker().length()) : name;
    }
}

package io.llmperf4j.run.search;

import io.llmperf4j.report.search.SearchDocument;

import java.nio.file.Path;
import java.util.List;
import java.util.OptionalDouble;

/**
 * What a capacity search found.
 *
 * @param document    the answer and every probed level, as {@code <base>_search.json} holds it
 * @param files       the files written (JSON, CSV, HTML), empty without a results folder
 * @param interrupted a signal (Ctrl-C) ended the search early; the document then holds the levels run so far
 * @param levelWarnings the levels' own warnings (their summaries'), one line per code across levels, as a sweep's
 *                      console has them: "[PREFIX_CACHE_REUSED] at concurrency 1, 2; concurrency 1: ..."
 */
public record SearchResult(SearchDocument document, List<Path> files, boolean interrupted,
                           List<String> levelWarnings) {

    public SearchResult {
        files = List.copyOf(files);
        levelWarnings = List.copyOf(levelWarnings);
    }

    /** Without the levels' warnings. */
    public SearchResult(SearchDocument document, List<Path> files, boolean interrupted) {
        this(document, files, interrupted, List.of());
    }

    /** The highest load that met every objective; empty when even the first level failed. */
    public OptionalDouble capacity() {
        return document.capacity() == null ? OptionalDouble.empty() : OptionalDouble.of(document.capacity());
    }

    /** "found", "below_range" or "above_range". */
    public String outcome() {
        return document.outcome();
    }

    /** How many levels ran, the final repeat included. */
    public int levelsRun() {
        return document.levels().size();
    }
}

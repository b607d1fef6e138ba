package io.llmperf4j.cli;

import picocli.CommandLine.Option;

/** How token-benchmark talks to a script: {@code --quiet} and {@code --output-format json}. See {@link ScriptOutput}. */
final class OutputFlags {
    @Option(names = {"-q", "--quiet"},
            description = "No progress lines and no console report. The run's warnings (the report's, e.g. "
                    + "[PREFIX_CACHE_REUSED], one line each), notes, errors and the names of the files written still "
                    + "go to stderr.")
    boolean quiet;

    @Option(names = "--output-format", paramLabel = "text|json", defaultValue = "text",
            completionCandidates = CompletionValues.OutputFormats.class,
            description = "json: stdout carries only the run's summary as one JSON document (<base>_llmperf4j_summary"
                    + ".json; a sweep's <base>_sweep.json; with several models an object of them by model), for "
                    + "scripts; the console report goes to stderr (none with --quiet). Without --results-dir the "
                    + "files are written to a temporary folder, deleted after the run.")
    String outputFormat;
}

package io.llmperf4j.cli;

import io.llmperf4j.run.ResultsFolder;
import picocli.CommandLine.Option;

/** token-benchmark's "Results and checks" section: what is written beside llmperf's files, and what fails a run. */
final class ResultsFlags {
    @Option(names = "--overwrite",
            description = "Replace the results of an earlier run in --results-dir: the result files it wrote (listed "
                    + "in .llmperf4j-files) are set aside when this run starts measuring and removed once it has "
                    + "written its own; they are put back if it writes none, and if every request failed, with "
                    + "this run's files in DIR/" + ResultsFolder.FAILED_PREFIX + "<time>/. Other files stay. Without "
                    + "it, a folder that already holds results (.json, .jsonl, .csv or .html files) is refused, so a "
                    + "rerun never loses a kept run; a folder another run is writing is always refused (lock file " + ResultsFolder.LOCK_FILE
                    + ").")
    boolean overwrite;

    @Option(names = "--save-events",
            description = "Also write <base>_events.csv to --results-dir: one row per content event (request id, "
                    + "prompt index, event index, seconds from send, chars, tokens).")
    boolean saveEvents;

    @Option(names = "--max-error-rate", paramLabel = "PERCENT",
            description = "Exit 4 when more than PERCENT (0 to 100) of the requests failed, cancellations at the end "
                    + "included, e.g. 5 for a CI gate. Without it only a run where every request failed exits 4.")
    Double maxErrorRate;
}

package io.llmperf4j.report.correctness;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The files a correctness run was written to.
 *
 * @param summaryJson             {@code <dir>/<model>_correctness_summary.json}
 * @param individualResponsesJson {@code <dir>/<model>_correctness_individual_responses.json}
 */
public record CorrectnessResultFiles(Path summaryJson, Path individualResponsesJson) {
    public CorrectnessResultFiles {
        Objects.requireNonNull(summaryJson, "summaryJson");
        Objects.requireNonNull(individualResponsesJson, "individualResponsesJson");
    }
}

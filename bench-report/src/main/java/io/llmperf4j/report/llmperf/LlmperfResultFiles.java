package io.llmperf4j.report.llmperf;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The files one run's results were written to.
 *
 * @param summaryJson             {@code <dir>/<base>_summary.json}
 * @param individualResponsesJson {@code <dir>/<base>_individual_responses.json}
 * @param requestsCsv             {@code <dir>/<base>_requests.csv}
 */
public record LlmperfResultFiles(Path summaryJson, Path individualResponsesJson, Path requestsCsv) {
    public LlmperfResultFiles {
        Objects.requireNonNull(summaryJson, "summaryJson");
        Objects.requireNonNull(individualResponsesJson, "individualResponsesJson");
        Objects.requireNonNull(requestsCsv, "requestsCsv");
    }
}

package io.llmperf4j.report.correctness;

/** How one request of the correctness test ended. */
public enum CorrectnessOutcome {
    /** The answer holds the expected number as one of its digit runs. */
    PASSED,
    /** The request did not error, but the expected number is not among the answer's digit runs. */
    MISMATCHED,
    /** The request errored (llmperf: a truthy {@code error_code}). */
    ERRORED
}

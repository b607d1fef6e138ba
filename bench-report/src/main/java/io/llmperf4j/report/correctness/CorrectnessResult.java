package io.llmperf4j.report.correctness;

import io.llmperf4j.model.RequestRecord;

import java.util.Objects;

/**
 * One finished request of the correctness test and what it asked.
 *
 * @param record         the request as measured (output tokens need not be counted: the correctness files report
 *                       SSE events, as llmperf's actor does)
 * @param expectedNumber the number the prompt spelled out (llmperf's {@code metadata["rnd_number"]})
 * @param prompt         the prompt text sent
 */
public record CorrectnessResult(RequestRecord record, long expectedNumber, String prompt) {
    public CorrectnessResult {
        Objects.requireNonNull(record, "record");
        Objects.requireNonNull(prompt, "prompt");
    }

    public CorrectnessOutcome outcome() {
        return CorrectnessCheck.outcome(record, expectedNumber);
    }
}

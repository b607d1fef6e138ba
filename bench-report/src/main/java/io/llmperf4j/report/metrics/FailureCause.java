package io.llmperf4j.report.metrics;

import io.llmperf4j.model.FailureKind;

/**
 * What one failure points at ({@link io.llmperf4j.model.FailureCause}, the one definition, mirrored here for the
 * report's callers), by its kind and code, with the same split as the REQUESTS_FAILED warning
 * (METRICS.md §6): a 4xx other than 408/429 (an HTTP status, or the code of an error in the stream) or a failed
 * connection is the client's configuration; 429, 408, 5xx, timeouts and dropped connections may be the server's
 * capacity; a cancellation at the run's end and a request lost with a load worker say nothing about the server; the
 * rest (malformed or cut-short streams, errors without a code, client errors) points at neither.
 */
public enum FailureCause {
    CONFIGURATION,
    CAPACITY,
    CANCELLED,
    LOST,
    OTHER;

    /**
     * The cause of a failure of {@code kind} with {@code code} (the HTTP status or stream error's code; null or -1:
     * none).
     */
    public static FailureCause of(FailureKind kind, Integer code) {
        return valueOf(io.llmperf4j.model.FailureCause.of(kind, code).name()); // one definition, in bench-model
    }
}

package io.llmperf4j.model;

/**
 * What one failure points at, by its kind and code (METRICS.md §6): a 4xx other than 408/429 (an HTTP status, or the
 * code of an error in the stream) or a failed connection is the client's configuration (or a server that is not
 * there); 429, 408, 5xx, timeouts and dropped connections may be the server's capacity; a cancellation at the run's
 * end and a request lost with a load worker say nothing about the server; the rest (malformed or cut-short streams,
 * errors without a code, client errors) points at neither. The one definition: the report's REQUESTS_FAILED warning
 * and the sweep's verdict both read it.
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
        boolean coded = code != null && code >= 0;
        return switch (kind) {
            case CANCELLED -> CANCELLED;
            case LOST -> LOST;
            case CONNECT_FAILED -> CONFIGURATION;
            case IDLE_TIMEOUT, REQUEST_TIMEOUT, CONNECTION_CLOSED -> CAPACITY;
            case HTTP_STATUS, ERROR_IN_STREAM -> !coded ? OTHER
                    : code == 429 || code == 408 || code >= 500 ? CAPACITY
                    : code >= 400 && code < 500 ? CONFIGURATION : OTHER;
            default -> OTHER;
        };
    }

    /** The cause of {@code failure}. */
    public static FailureCause of(Failure failure) {
        return of(failure.kind(), failure.code());
    }
}

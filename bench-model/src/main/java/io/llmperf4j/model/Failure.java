package io.llmperf4j.model;

import java.util.Objects;

/**
 * A request failure in llmperf's terms plus its kind.
 *
 * @param kind    the classification
 * @param code    llmperf's {@code error_code}: the HTTP status, the stream error object's numeric code, or -1
 * @param message llmperf's {@code error_msg}: the response body, the error object's message, or what happened;
 *                never contains credentials
 */
public record Failure(FailureKind kind, int code, String message) {
    public Failure {
        Objects.requireNonNull(kind, "kind");
        message = message == null ? "" : message;
    }
}

package io.llmperf4j.engine.protocol;

import java.util.Objects;

/**
 * An error object the server sent inside a 200 response.
 *
 * @param code    the error's numeric code (a JSON number, or a string of digits), or -1 when it has none
 * @param message the error's message (never null)
 */
public record StreamError(int code, String message) {
    public StreamError {
        Objects.requireNonNull(message, "message");
    }
}

package io.llmperf4j.report.metrics;

import java.util.Objects;

/**
 * A warning about a run's results: a stable {@link WarningCode} and a plain-English message with the numbers.
 *
 * @param code    what is wrong
 * @param message what it means and what to do
 */
public record RunWarning(WarningCode code, String message) {
    public RunWarning {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
    }

    @Override
    public String toString() {
        return "[" + code + "] " + message;
    }
}

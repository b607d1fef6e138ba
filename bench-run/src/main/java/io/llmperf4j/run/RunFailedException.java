package io.llmperf4j.run;

/** A run that could not complete (an unreachable endpoint, a folder that cannot be written); the CLI exits 1. */
public class RunFailedException extends RuntimeException {
    public RunFailedException(String message) {
        super(message);
    }

    public RunFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}

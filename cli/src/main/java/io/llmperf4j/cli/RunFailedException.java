package io.llmperf4j.cli;

/** The run could not go on (unreachable host, unwritable folder): one line, exit code {@link ExitCodes#FAILURE}. */
final class RunFailedException extends RuntimeException {
    RunFailedException(String message) {
        super(message);
    }

    RunFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}

package io.llmperf4j.cli;

/** Bad input from the user: printed as one line, exit code {@link ExitCodes#USAGE}. */
final class UsageException extends RuntimeException {
    UsageException(String message) {
        super(message);
    }
}

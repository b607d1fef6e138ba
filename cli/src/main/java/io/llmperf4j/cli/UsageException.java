package io.llmperf4j.cli;

import io.llmperf4j.run.InvalidRequestException;

/** Bad input from the user: printed as one line, exit code {@link ExitCodes#USAGE}. */
final class UsageException extends InvalidRequestException {
    UsageException(String message) {
        super(message);
    }
}

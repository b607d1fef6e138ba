package io.llmperf4j.run;

/**
 * A results folder another run holds: an expected condition, fully said by its message (who holds it, what to do),
 * so the CLI prints it as it is, without a pointer to --debug; it exits 1 as any run that could not complete.
 */
public final class FolderInUseException extends RunFailedException {
    public FolderInUseException(String message) {
        super(message);
    }
}

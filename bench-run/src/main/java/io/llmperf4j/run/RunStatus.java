package io.llmperf4j.run;

/** How a run ended; a failure is an exception instead ({@link RunFailedException}, {@link InvalidRequestException}). */
public enum RunStatus {
    /** Everything planned ran. */
    COMPLETED,
    /** A signal (Ctrl-C, SIGTERM) cut it short; everything recorded until then is written. The CLI exits 130. */
    INTERRUPTED;

    /** The exit code of a process that ends with this status: 0 or 130. */
    public int exitCode() {
        return this == COMPLETED ? 0 : InterruptHandler.EXIT_CODE;
    }
}

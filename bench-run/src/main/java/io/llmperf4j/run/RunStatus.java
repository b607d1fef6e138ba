package io.llmperf4j.run;

/** How a run ended; a failure is an exception instead ({@link RunFailedException}, {@link InvalidRequestException}). */
public enum RunStatus {
    /** Everything planned ran. */
    COMPLETED,
    /** A signal (Ctrl-C, SIGTERM) cut it short; everything recorded until then is written. The CLI exits 130. */
    INTERRUPTED,
    /** Everything ran, but every request failed or more than --max-error-rate percent did. The CLI exits 4. */
    REQUESTS_FAILED,
    /**
     * Everything ran, but with --slo-exit a judged level missed an --slo objective (a sweep: any level). The CLI exits
     * 3, as for a crossed threshold.
     */
    SLO_MISSED;

    /** The exit code of a process that ends with {@link #REQUESTS_FAILED}. */
    public static final int REQUESTS_FAILED_EXIT_CODE = 4;
    /** The exit code of a process that ends with {@link #SLO_MISSED}: a threshold crossed. */
    public static final int SLO_MISSED_EXIT_CODE = 3;

    /** The exit code of a process that ends with this status: 0, 3, 4 or 130. */
    public int exitCode() {
        return switch (this) {
            case COMPLETED -> 0;
            case INTERRUPTED -> InterruptHandler.EXIT_CODE;
            case REQUESTS_FAILED -> REQUESTS_FAILED_EXIT_CODE;
            case SLO_MISSED -> SLO_MISSED_EXIT_CODE;
        };
    }
}

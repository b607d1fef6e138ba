package io.llmperf4j.cli;

/** The closed set of exit codes, listed in every command's help. */
final class ExitCodes {
    static final int OK = 0;
    static final int FAILURE = 1;
    static final int USAGE = 2;
    /** Also {@code RunStatus.SLO_MISSED_EXIT_CODE}. */
    static final int THRESHOLD_FAILED = 3;
    /** Also {@code RunStatus.REQUESTS_FAILED_EXIT_CODE}. */
    static final int REQUESTS_FAILED = 4;
    static final int INTERRUPTED = 130;

    static final String[] HELP_LIST = {
        "0:Success.",
        "1:The run failed (unreachable endpoint, unwritable results folder, ...).",
        "2:Invalid input (flags or environment variables).",
        "3:A --fail-if threshold was crossed, a rule could not be evaluated or a compared side did not run to its "
            + "end (compare), or an --slo objective was missed with --slo-exit (token-benchmark).",
        "4:Every request failed, or more than --max-error-rate percent did (token-benchmark); the server's most "
            + "frequent messages are printed.",
        "130:Interrupted (Ctrl-C); results recorded so far are written."
    };

    private ExitCodes() {
    }
}

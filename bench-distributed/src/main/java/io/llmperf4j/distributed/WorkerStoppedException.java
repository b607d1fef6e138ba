package io.llmperf4j.distributed;

import java.io.Serial;

/**
 * A worker's share ended because the worker itself is leaving (its SIGTERM or Ctrl-C): the share's task fails with
 * this instead of returning an outcome, so the coordinator treats the worker as one that left mid-run (its unsent
 * requests not sent), not as a share that a stop of the whole run cut.
 */
final class WorkerStoppedException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    WorkerStoppedException(String workerId, String reason) {
        super("worker " + workerId + " was stopped on its machine (" + reason + ")");
    }
}

package io.llmperf4j.distributed;

import io.llmperf4j.model.Failure;
import io.llmperf4j.model.PartialAnswer;

/**
 * What one worker's pre-run request got ({@link Coordinator#checkRequests}): the facts only, judged by the
 * coordinator's side with the single-machine check's rule. Nothing here holds the worker's key: the worker redacts
 * it from the server's message before answering.
 *
 * @param key      whether the worker has a key for the run's API; with {@link KeyState#UNSET} or
 *                 {@link KeyState#EMPTY} nothing was sent
 * @param answered false when no answer came within the wait (or the request could not complete): a slow server is
 *                 the run's to measure
 * @param failure  the request's failure, its message without the worker's key; null when it succeeded (or was not
 *                 answered)
 * @param partialAnswer what came of an answer the worker gave up on, or its client's idle or request timeout ended
 *                 (status and headers, events, the quiet before the end), for the coordinator's line; null when
 *                 nothing came, it ended otherwise, or the worker is older than this field (its JSON lacks it, which
 *                 reads as null)
 */
public record RequestCheck(KeyState key, boolean answered, Failure failure, PartialAnswer partialAnswer) {

    /** A check without a partial answer. */
    public RequestCheck(KeyState key, boolean answered, Failure failure) {
        this(key, answered, failure, null);
    }

    /** The worker's key variable for the run's API: set, unset, or set but empty (blank). */
    public enum KeyState { SET, UNSET, EMPTY }
}

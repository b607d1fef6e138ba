package io.llmperf4j.distributed;

import io.llmperf4j.model.Failure;

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
 */
public record RequestCheck(KeyState key, boolean answered, Failure failure) {
    /** The worker's key variable for the run's API: set, unset, or set but empty (blank). */
    public enum KeyState { SET, UNSET, EMPTY }
}

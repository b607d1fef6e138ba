package io.llmperf4j.distributed;

/** A distributed run could not start or finish; the message says why in the user's terms. */
public final class DistributedRunException extends RuntimeException {
    public DistributedRunException(String message) {
        super(message);
    }
}

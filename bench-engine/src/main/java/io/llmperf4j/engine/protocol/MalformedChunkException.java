package io.llmperf4j.engine.protocol;

/** The data of an event was not valid JSON or not a chunk of the API; the message says why, without the data. */
public final class MalformedChunkException extends Exception {
    private static final long serialVersionUID = 1L;

    public MalformedChunkException(String reason) {
        super(reason);
    }
}

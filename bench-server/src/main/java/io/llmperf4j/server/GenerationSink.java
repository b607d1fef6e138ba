package io.llmperf4j.server;

/**
 * Where a {@link GenerationEngine} reports one response; the server's front implements it and turns each call into
 * the API's wire format (an SSE event, or part of one JSON response). Safe to call from any thread; calls after
 * {@link #end} or {@link #fail} are ignored.
 */
public interface GenerationSink {

    /** The prompt is counted and decoding begins: a stream sends its headers and opening events now. */
    void start(int promptTokens);

    /** New text, whole characters, never empty: one content event of a stream. */
    void text(String text);

    /**
     * The response is complete: finish reason, usage, and the end of the stream.
     *
     * @param completionTokens tokens generated
     * @param stopped          true when the model stopped by itself (finish reason "stop"), false when it ran to
     *                         {@code max_tokens} ("length")
     */
    void end(int completionTokens, boolean stopped);

    /**
     * The request cannot be served. Before {@link #start}, an HTTP error: 400 when {@code badRequest} (the request
     * itself is at fault, e.g. a prompt longer than the context), else 500. After it, an error event ends the
     * stream.
     */
    void fail(String message, boolean badRequest);

    /** True once the client has gone: the engine should stop generating. */
    boolean cancelled();
}

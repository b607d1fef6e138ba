package io.llmperf4j.model;

/** Why a request did not complete normally. Every failure is recorded, never dropped. */
public enum FailureKind {
    /** The server answered with a non-200 status. */
    HTTP_STATUS,
    /**
     * A 200 response whose body or stream carried an error: an {@code {"error": ...}} object, vLLM's older
     * {@code {"object": "error", ...}}, or an {@code event: error}.
     */
    ERROR_IN_STREAM,
    /**
     * An SSE event that was not valid JSON or lacked the fields of a chat completion chunk; also a 200 body that is
     * not in the coding its Content-Encoding names (gzip or deflate that is not): the server's response was malformed.
     */
    MALFORMED_EVENT,
    /**
     * The stream ended cleanly, its HTTP response complete by its own framing (the last chunk, the whole
     * Content-Length), without {@code data: [DONE]} (Anthropic: {@code message_stop}) and without any finish reason:
     * the API ended it so, and the response may be cut short; the data received is kept. A stream that gave a finish
     * reason before such an end is a success, as llmperf records it (its record is tagged
     * {@link RequestTags#endMarkerMissing()} and the run warns). A body that ends with the connection (no length, no
     * chunking) and ends so is {@link #CONNECTION_CLOSED}: the close is all the client saw.
     */
    MISSING_DONE,
    /** The TCP or TLS connection could not be established. */
    CONNECT_FAILED,
    /**
     * The connection closed or reset before the response was complete; tokens so far are kept. A stream whose body
     * ends with the connection (HTTP/1.0 style) is complete only with its end event or a finish reason: ended inside an
     * event it was cut; ended between events without either, the server stopped or its API never ends streams, and the
     * message says both.
     */
    CONNECTION_CLOSED,
    /** No bytes arrived for longer than the idle timeout. */
    IDLE_TIMEOUT,
    /** The whole request took longer than the request timeout. */
    REQUEST_TIMEOUT,
    /** The run ended (its --timeout or a signal) while the request was in flight. */
    CANCELLED,
    /** Anything else the client could not classify; the message says what. */
    CLIENT_ERROR,
    /**
     * A distributed run's load worker left the cluster before the request's record reached the coordinator; the
     * message names the worker. Whether the server saw the request is unknown.
     */
    LOST
}

package io.llmperf4j.server;

import io.netty.handler.codec.http.HttpResponseStatus;

/** A request the simulator refuses; becomes an OpenAI-style error response with this status. */
final class InvalidRequestException extends Exception {
    private static final long serialVersionUID = 1L;

    final transient HttpResponseStatus status;
    /** The offending request field, or null. */
    final String param;

    InvalidRequestException(HttpResponseStatus status, String message, String param) {
        super(message, null, false, false);
        this.status = status;
        this.param = param;
    }

    static InvalidRequestException badRequest(String message, String param) {
        return new InvalidRequestException(HttpResponseStatus.BAD_REQUEST, message, param);
    }
}

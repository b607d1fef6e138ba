package io.llmperf4j.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;

/** Anthropic-style errors for {@code /v1/messages}: {@code {"type":"error","error":{"type":..,"message":..}}}. */
final class AnthropicResponses {

    private AnthropicResponses() {
    }

    static FullHttpResponse error(ByteBufAllocator alloc, HttpResponseStatus status, String message) {
        ByteBuf body = ChunkEncoder.encode(alloc, 96 + message.length(),
                g -> AnthropicEncoder.writeError(g, errorType(status), message));
        return OpenAiResponses.json(status, body);
    }

    /** Anthropic's documented error types by status. */
    static String errorType(HttpResponseStatus status) {
        switch (status.code()) {
            case 400: return "invalid_request_error";
            case 401: return "authentication_error";
            case 403: return "permission_error";
            case 404: return "not_found_error";
            case 413: return "request_too_large";
            case 429: return "rate_limit_error";
            case 529: return "overloaded_error";
            default: return status.code() >= 500 ? "api_error" : "invalid_request_error";
        }
    }
}

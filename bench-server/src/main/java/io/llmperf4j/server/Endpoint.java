package io.llmperf4j.server;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;

/** The generation endpoints and the names their JSON uses. */
enum Endpoint {
    CHAT("/v1/chat/completions", "chatcmpl-", "chat.completion", "chat.completion.chunk"),
    TEXT("/v1/completions", "cmpl-", "text_completion", "text_completion"),
    /** Anthropic Messages: its own wire format ({@link AnthropicEncoder}) and error shape. */
    MESSAGES("/v1/messages", "msg_", "message", "message");

    final String path;
    final String idPrefix;
    final String responseObject;
    final String chunkObject;

    Endpoint(String path, String idPrefix, String responseObject, String chunkObject) {
        this.path = path;
        this.idPrefix = idPrefix;
        this.responseObject = responseObject;
        this.chunkObject = chunkObject;
    }

    boolean anthropic() {
        return this == MESSAGES;
    }

    /** An error response in this endpoint's dialect: Anthropic's for {@code /v1/messages}, OpenAI's otherwise. */
    FullHttpResponse error(ByteBufAllocator alloc, HttpResponseStatus status, String message, String param) {
        return anthropic() ? AnthropicResponses.error(alloc, status, message)
                : OpenAiResponses.error(alloc, status, message, param);
    }
}

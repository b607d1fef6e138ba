package io.llmperf4j.server;

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
}

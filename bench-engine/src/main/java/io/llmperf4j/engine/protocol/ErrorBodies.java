package io.llmperf4j.engine.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The server's own message in an error body, the one place that reads it: OpenAI's and Anthropic's
 * {@code {"error": {"message": ...}}}, a bare {@code {"error": "..."}}, or a top-level {@code {"message": ...}}.
 */
public final class ErrorBodies {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ErrorBodies() {
    }

    /** The message of an {@code error} node (an object with {@code message}, or a string), or null when none. */
    public static String message(JsonNode error) {
        JsonNode message = error.isTextual() ? error : error.path("message");
        return message.isTextual() && !message.textValue().isBlank() ? message.textValue() : null;
    }

    /** The message of an error body as it came over the wire, or {@code body} itself when it holds none. */
    public static String serverMessage(String body) {
        if (body == null) return null;
        String trimmed = body.strip();
        if (!trimmed.startsWith("{")) return body;
        try {
            JsonNode root = JSON.readTree(trimmed);
            String message = message(root.path("error"));
            if (message == null) message = message(root);
            return message == null ? body : message;
        } catch (Exception notJson) {
            return body;
        }
    }
}

package io.llmperf4j.model;

import java.util.Objects;

/**
 * One earlier message of a conversation, resent with the next turn ({@code role} is {@code user},
 * {@code assistant} or {@code system}).
 */
public record ChatMessage(String role, String content) {
    public ChatMessage {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(content, "content");
    }

    public static ChatMessage user(String content) {
        return new ChatMessage("user", content);
    }

    public static ChatMessage assistant(String content) {
        return new ChatMessage("assistant", content);
    }
}

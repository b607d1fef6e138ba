package io.llmperf4j.model;

import java.util.List;
import java.util.Objects;

/**
 * One earlier message of a conversation, resent with the next turn ({@code role} is {@code user},
 * {@code assistant} or {@code system}) with the images it carried, so a later turn resends them as they were sent.
 *
 * @param images the images of a user message, in order; empty for text only
 */
public record ChatMessage(String role, String content, List<ImageInput> images) {
    public ChatMessage {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(content, "content");
        images = images == null ? List.of() : List.copyOf(images);
    }

    public ChatMessage(String role, String content) {
        this(role, content, List.of());
    }

    public static ChatMessage user(String content) {
        return new ChatMessage("user", content);
    }

    /** A user message as it was sent: its text and its images. */
    public static ChatMessage user(String content, List<ImageInput> images) {
        return new ChatMessage("user", content, images);
    }

    public static ChatMessage assistant(String content) {
        return new ChatMessage("assistant", content);
    }
}

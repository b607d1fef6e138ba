package io.llmperf4j.model;

import java.util.List;

/**
 * What a request sends beyond its new user text: a system prompt (shared-prefix groups), the conversation so far
 * (multi-turn sessions resend it), images, and the session it belongs to.
 *
 * @param systemPrompt a system message sent first, or null
 * @param history      earlier messages of the session in order (user and assistant), empty for a single turn
 * @param images       images attached to the new user message, empty for none
 * @param sessionId    the session this request is a turn of, or null outside sessions
 * @param turn         0-based turn index within the session, or -1 outside sessions
 */
public record RequestInputs(String systemPrompt, List<ChatMessage> history, List<ImageInput> images,
                            String sessionId, int turn) {
    /** Between a system prompt and the prompt when they are counted (or, for the completions API, sent) as one text. */
    public static final String SYSTEM_PROMPT_SEPARATOR = "\n\n";

    /** A single-turn text prompt: llmperf's only kind of request. */
    public static final RequestInputs TEXT_ONLY = new RequestInputs(null, List.of(), List.of(), null, -1);

    public RequestInputs {
        history = history == null ? List.of() : List.copyOf(history);
        images = images == null ? List.of() : List.copyOf(images);
    }

    public boolean hasImages() {
        return !images.isEmpty();
    }

    /**
     * Every image the request carries: the history's user messages' (a session resends them) and then the new
     * message's. This is what the server receives and counts as image tokens.
     */
    public List<ImageInput> sentImages() {
        if (history.isEmpty()) return images;
        List<ImageInput> all = new java.util.ArrayList<>();
        for (ChatMessage message : history) all.addAll(message.images());
        all.addAll(images);
        return all;
    }

    /** Encoded bytes of the new message's images. */
    public long imageBytes() {
        long sum = 0;
        for (ImageInput image : images) sum += image.byteLength();
        return sum;
    }

    /** Pixels of the new message's images. */
    public long imagePixels() {
        long sum = 0;
        for (ImageInput image : images) sum += image.pixels();
        return sum;
    }
}

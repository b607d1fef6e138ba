package io.llmperf4j.server;

import com.fasterxml.jackson.core.JsonGenerator;

import java.io.IOException;

/**
 * The wire format of one generation response, streamed (events) or whole. {@link Generation} decides what to
 * send and when; an encoder only decides how it looks: OpenAI/vLLM ({@link ChunkEncoder}) or Anthropic Messages
 * ({@link AnthropicEncoder}). Several events go through one generator into one buffer.
 */
interface ResponseEncoder {

    /**
     * Token counts of a response; {@code reasoningTokens} are part of {@code completionTokens},
     * {@code cachedTokens} (prefix-cache hits) part of {@code promptTokens}.
     */
    record Usage(int promptTokens, int completionTokens, int reasoningTokens, int cachedTokens) {
        Usage(int promptTokens, int completionTokens, int reasoningTokens) {
            this(promptTokens, completionTokens, reasoningTokens, 0);
        }
    }

    /** Events sent with the first content chunk, before it (chat: the role event; Anthropic: message_start, ...). */
    void open(JsonGenerator g, Usage usage) throws IOException;

    /** One content chunk; {@code reasoning} is null or non-empty, {@code content} is null or non-empty. */
    default void chunk(JsonGenerator g, String reasoning, String content) throws IOException {
        chunk(g, reasoning, content, 0);
    }

    /**
     * The same, its event padded to at least {@code paddingBytes} bytes ({@link FaultKind#OVERSIZED_EVENT}) by a
     * {@value #PADDING_FIELD} string of that many spaces in the event's top-level object: a larger event, the same
     * text and tokens. 0: no padding.
     */
    void chunk(JsonGenerator g, String reasoning, String content, int paddingBytes) throws IOException;

    /**
     * Everything after the last content chunk: finish event, usage event when {@code includeUsage} (OpenAI only;
     * Anthropic always reports usage), and the terminal marker ({@code [DONE]}, {@code message_stop}) when
     * {@code terminalMarker}.
     */
    void close(JsonGenerator g, boolean stopped, Usage usage, boolean includeUsage, boolean terminalMarker)
            throws IOException;

    /** The {@link FaultKind#ERROR_EVENT} stream: an error event (and, for OpenAI, {@code [DONE]}). */
    default void errorEvent(JsonGenerator g) throws IOException {
        errorEvent(g, ERROR_EVENT_MESSAGE);
    }

    /** An error event carrying {@code message} (and, for OpenAI, {@code [DONE]}): a stream that fails. */
    void errorEvent(JsonGenerator g, String message) throws IOException;

    /** The {@link FaultKind#MALFORMED_EVENT} event: framing around JSON that is cut off. */
    void malformedEvent(JsonGenerator g) throws IOException;

    /** A non-streaming response. */
    default void fullResponse(JsonGenerator g, String reasoning, String content, boolean stopped, Usage usage)
            throws IOException {
        fullResponse(g, reasoning, content, stopped, usage, 0);
    }

    /** The same, padded as {@link #chunk(JsonGenerator, String, String, int)} pads an event. */
    void fullResponse(JsonGenerator g, String reasoning, String content, boolean stopped, Usage usage,
                      int paddingBytes) throws IOException;

    /** The non-streaming {@link FaultKind#ERROR_EVENT} body (sent with HTTP 200). */
    void errorBody(JsonGenerator g) throws IOException;

    /** The field that pads an {@link FaultKind#OVERSIZED_EVENT} event; no client reads it. */
    String PADDING_FIELD = "sim_padding";

    /** {@code "sim_padding":"<paddingBytes spaces>"} in the object being written, when {@code paddingBytes > 0}. */
    static void writePadding(JsonGenerator g, int paddingBytes) throws IOException {
        if (paddingBytes <= 0) return;
        g.writeStringField(PADDING_FIELD, " ".repeat(paddingBytes));
    }

    /** The message of the injected generation error. */
    String ERROR_EVENT_MESSAGE = "Simulated fault: the model failed during generation.";
}

package io.llmperf4j.server;

import com.fasterxml.jackson.core.JsonGenerator;

import java.io.IOException;

/**
 * The Anthropic Messages wire format. A stream is {@code event: <type>\ndata: {json}\n\n} events:
 * {@code message_start} (usage.input_tokens, output_tokens 1), {@code content_block_start} (an empty text block,
 * index 0), {@code ping}, one {@code content_block_delta} ({@code {"type":"text_delta","text":..}}) per content
 * chunk, {@code content_block_stop}, {@code message_delta} ({@code stop_reason} "max_tokens" or "end_turn",
 * {@code usage.output_tokens}) and {@code message_stop}. A non-streaming response is one {@code message} object.
 */
final class AnthropicEncoder implements ResponseEncoder {

    static final String STOP_MAX_TOKENS = "max_tokens";
    static final String STOP_END_TURN = "end_turn";

    private final String id;
    private final String model;

    AnthropicEncoder(String id, String model) {
        this.id = id;
        this.model = model;
    }

    @Override
    public void open(JsonGenerator g, Usage usage) throws IOException {
        startEvent(g, "message_start");
        g.writeObjectFieldStart("message");
        writeMessageHead(g);
        g.writeArrayFieldStart("content");
        g.writeEndArray();
        g.writeNullField("stop_reason");
        g.writeNullField("stop_sequence");
        g.writeObjectFieldStart("usage");
        writeInputTokens(g, usage);
        g.writeNumberField("output_tokens", 1);
        g.writeEndObject();
        g.writeEndObject();
        endEvent(g);

        startEvent(g, "content_block_start");
        g.writeNumberField("index", 0);
        g.writeObjectFieldStart("content_block");
        g.writeStringField("type", "text");
        g.writeStringField("text", "");
        g.writeEndObject();
        endEvent(g);

        startEvent(g, "ping");
        endEvent(g);
    }

    /** Reasoning is not simulated for this API: only the content is sent. */
    @Override
    public void chunk(JsonGenerator g, String reasoning, String content, int paddingBytes) throws IOException {
        if (content == null) return;
        startEvent(g, "content_block_delta");
        g.writeNumberField("index", 0);
        g.writeObjectFieldStart("delta");
        g.writeStringField("type", "text_delta");
        g.writeStringField("text", content);
        g.writeEndObject();
        ResponseEncoder.writePadding(g, paddingBytes);
        endEvent(g);
    }

    @Override
    public void close(JsonGenerator g, boolean stopped, Usage usage, boolean includeUsage, boolean terminalMarker)
            throws IOException {
        startEvent(g, "content_block_stop");
        g.writeNumberField("index", 0);
        endEvent(g);

        startEvent(g, "message_delta");
        g.writeObjectFieldStart("delta");
        g.writeStringField("stop_reason", stopped ? STOP_END_TURN : STOP_MAX_TOKENS);
        g.writeNullField("stop_sequence");
        g.writeEndObject();
        g.writeObjectFieldStart("usage");
        g.writeNumberField("output_tokens", usage.completionTokens());
        g.writeEndObject();
        endEvent(g);

        if (terminalMarker) {
            startEvent(g, "message_stop");
            endEvent(g);
        }
    }

    /** {@code event: error} with {@code {"type":"error","error":{"type":"api_error","message":..}}}. */
    @Override
    public void errorEvent(JsonGenerator g, String message) throws IOException {
        g.writeRaw("event: error\ndata: ");
        writeError(g, "api_error", message);
        g.writeRaw("\n\n");
    }

    @Override
    public void malformedEvent(JsonGenerator g) throws IOException {
        g.writeRaw("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
                + "\"delta\":{\"type\":\"text_delta\",\"text\":\"\n\n");
    }

    @Override
    public void fullResponse(JsonGenerator g, String reasoning, String content, boolean stopped, Usage usage,
                             int paddingBytes) throws IOException {
        g.writeStartObject();
        writeMessageHead(g);
        g.writeArrayFieldStart("content");
        g.writeStartObject();
        g.writeStringField("type", "text");
        g.writeStringField("text", content == null ? "" : content);
        g.writeEndObject();
        g.writeEndArray();
        g.writeStringField("stop_reason", stopped ? STOP_END_TURN : STOP_MAX_TOKENS);
        g.writeNullField("stop_sequence");
        g.writeObjectFieldStart("usage");
        writeInputTokens(g, usage);
        g.writeNumberField("output_tokens", usage.completionTokens());
        g.writeEndObject();
        ResponseEncoder.writePadding(g, paddingBytes);
        g.writeEndObject();
    }

    @Override
    public void errorBody(JsonGenerator g) throws IOException {
        writeError(g, "api_error", ERROR_EVENT_MESSAGE);
    }

    /** {@code {"type":"error","error":{"type":..,"message":..}}}, Anthropic's error shape. */
    static void writeError(JsonGenerator g, String type, String message) throws IOException {
        g.writeStartObject();
        g.writeStringField("type", "error");
        g.writeObjectFieldStart("error");
        g.writeStringField("type", type);
        g.writeStringField("message", message);
        g.writeEndObject();
        g.writeEndObject();
    }

    private void writeMessageHead(JsonGenerator g) throws IOException {
        g.writeStringField("id", id);
        g.writeStringField("type", "message");
        g.writeStringField("role", "assistant");
        g.writeStringField("model", model);
    }

    private static void startEvent(JsonGenerator g, String type) throws IOException {
        g.writeRaw("event: ");
        g.writeRaw(type);
        g.writeRaw("\ndata: ");
        g.writeStartObject();
        g.writeStringField("type", type);
    }

    private static void endEvent(JsonGenerator g) throws IOException {
        g.writeEndObject();
        g.writeRaw("\n\n");
    }

    /** Anthropic's split: {@code input_tokens} is the uncached rest, {@code cache_read_input_tokens} the hits. */
    private static void writeInputTokens(JsonGenerator g, Usage usage) throws IOException {
        g.writeNumberField("input_tokens", usage.promptTokens() - usage.cachedTokens());
        if (usage.cachedTokens() > 0) g.writeNumberField("cache_read_input_tokens", usage.cachedTokens());
    }
}

package io.llmperf4j.engine.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.model.ErrorBodies;

import java.io.IOException;

/**
 * Anthropic Messages streaming events, typed by the SSE {@code event:} name (or, without one, by the data's
 * {@code type} field):
 * <ul>
 *   <li>{@code message_start}: response id = {@code message.id}, prompt tokens = {@code message.usage.input_tokens}
 *       (its provisional {@code output_tokens} is ignored);</li>
 *   <li>{@code content_block_delta}: content = {@code delta.text} of a {@code text_delta}, reasoning =
 *       {@code delta.thinking} of a {@code thinking_delta} (extended thinking); every {@code content_block_delta}
 *       counts as a data event, nothing else does;</li>
 *   <li>{@code message_delta}: finish reason = {@code delta.stop_reason}, completion tokens =
 *       {@code usage.output_tokens};</li>
 *   <li>{@code error}: a {@link StreamError} with code -1 and "{@code error.type}: {@code error.message}";</li>
 *   <li>{@code ping}, {@code content_block_start}, {@code content_block_stop}, {@code message_stop} (the engine
 *       treats it as the end of the stream) and unknown types: nothing;</li>
 *   <li>a whole non-streaming {@code message} object (type {@code message}): content = the text blocks joined,
 *       {@code stop_reason}, {@code usage.input_tokens} / {@code output_tokens};</li>
 *   <li>malformed: data that is not a JSON object, or an event with no type at all.</li>
 * </ul>
 * {@link #wholeMessage()} reads the body of a non-streaming response instead: a {@code message} object (one with
 * no {@code content} array is malformed) or an {@code error} object; any other type is malformed.
 */
public final class AnthropicEventParser implements ChunkParser {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ParsedChunk NOTHING = new ParsedChunk(null, null, null, false, null, null, null);

    private final boolean wholeMessageOnly;

    /** The streaming events. */
    public AnthropicEventParser() {
        this(false);
    }

    private AnthropicEventParser(boolean wholeMessageOnly) {
        this.wholeMessageOnly = wholeMessageOnly;
    }

    /** The body of a non-streaming Messages response ({@code "stream": false}). */
    public static AnthropicEventParser wholeMessage() {
        return new AnthropicEventParser(true);
    }

    @Override
    public ParsedChunk parse(byte[] data) throws MalformedChunkException {
        return parse(null, data);
    }

    @Override
    public ParsedChunk parse(String eventType, byte[] data) throws MalformedChunkException {
        MalformedChunkException.requireData(eventType, data, 0, data.length);
        JsonNode root;
        try {
            root = JSON.readTree(data);
        } catch (JsonProcessingException e) {
            throw new MalformedChunkException("invalid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new MalformedChunkException("unreadable: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw new MalformedChunkException("not a JSON object");
        }
        String type = eventType != null ? eventType : root.path("type").textValue();
        if (type == null) {
            throw new MalformedChunkException("no event type (neither an event: line nor a type field)");
        }
        if (wholeMessageOnly && !type.equals("message") && !type.equals("error")) {
            throw new MalformedChunkException("a response of type '" + type + "', not a message or an error");
        }
        switch (type) {
            case "message_start": {
                JsonNode message = root.path("message");
                JsonNode usage = message.path("usage");
                return new ParsedChunk(message.path("id").textValue(), null, null, false,
                        promptTokens(usage), null, null, null, intOrNull(usage.path("cache_read_input_tokens")));
            }
            case "content_block_delta": {
                JsonNode delta = root.path("delta");
                String deltaType = delta.path("type").textValue();
                String text = "text_delta".equals(deltaType) ? delta.path("text").textValue() : null;
                String thinking = "thinking_delta".equals(deltaType) ? delta.path("thinking").textValue() : null;
                return new ParsedChunk(null, text, null, true, null, null, null, thinking);
            }
            case "message_delta":
                return new ParsedChunk(null, null, root.path("delta").path("stop_reason").textValue(), false, null,
                        intOrNull(root.path("usage").path("output_tokens")), null);
            case "error": {
                JsonNode error = root.path("error");
                String message = ErrorBodies.message(error);
                String errorType = error.path("type").textValue();
                return new ParsedChunk(null, null, null, false, null, null, new StreamError(-1,
                        (errorType == null ? "" : errorType + ": ")
                                + (message == null ? "error event without a message" : message)));
            }
            case "message":
                return wholeMessage(root);
            default:
                return NOTHING; // ping, content_block_start/stop, message_stop, and types added later
        }
    }

    private static ParsedChunk wholeMessage(JsonNode root) throws MalformedChunkException {
        if (!root.path("content").isArray()) {
            throw new MalformedChunkException("a message without a content array");
        }
        StringBuilder text = new StringBuilder();
        for (JsonNode block : root.path("content")) {
            if ("text".equals(block.path("type").textValue()) && block.path("text").isTextual()) {
                text.append(block.path("text").textValue());
            }
        }
        JsonNode usage = root.path("usage");
        return new ParsedChunk(root.path("id").textValue(), text.toString(), root.path("stop_reason").textValue(),
                true, promptTokens(usage), intOrNull(usage.path("output_tokens")), null, null,
                intOrNull(usage.path("cache_read_input_tokens")));
    }

    private static Integer intOrNull(JsonNode node) {
        return node.isInt() ? node.intValue() : null;
    }

    /**
     * The whole prompt: Anthropic's {@code input_tokens} is only the uncached rest, the cache reads and writes come
     * on top of it; null without {@code input_tokens}.
     */
    private static Integer promptTokens(JsonNode usage) {
        Integer input = intOrNull(usage.path("input_tokens"));
        if (input == null) return null;
        Integer read = intOrNull(usage.path("cache_read_input_tokens"));
        Integer created = intOrNull(usage.path("cache_creation_input_tokens"));
        return input + (read == null ? 0 : read) + (created == null ? 0 : created);
    }
}

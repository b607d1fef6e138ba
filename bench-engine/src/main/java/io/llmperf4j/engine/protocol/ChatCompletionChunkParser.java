package io.llmperf4j.engine.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * OpenAI {@code chat.completion.chunk} interpretation, reading only the fields we need and skipping the rest: with
 * {@link ByteJsonCursor} for the common chunk, with Jackson's streaming parser for anything that cursor is not sure
 * of (so values and error messages are always Jackson's).
 *
 * <ul>
 *   <li>content = {@code choices[0].delta.content} ({@link #chatResponse()}: {@code message.content} of a whole
 *       response; {@link #textCompletion()}: {@code text}); other choices are ignored, as in llmperf, and reasoning
 *       is never content, so TTFT is time to the first visible content;</li>
 *   <li>reasoning = {@code choices[0].delta.reasoning_content} (vLLM, DeepSeek, SGLang), else
 *       {@code delta.reasoning} (vLLM's newer name, OpenRouter, Ollama) ({@code message.*} of a whole response), for
 *       the time to the first reasoning token;</li>
 *   <li>finish reason = {@code choices[0].finish_reason}; response id = top-level {@code id};</li>
 *   <li>usage = {@code usage.prompt_tokens} / {@code usage.completion_tokens};</li>
 *   <li>an {@code error} member (object or string) is a {@link StreamError}; its code is {@code error.code} when
 *       that is a number or a string of digits, otherwise -1 (the HTTP status, 200 here, would only mislead);
 *       so is a top-level {@code "object": "error"} with its {@code message} and {@code code} (older vLLM:
 *       {@code {"object":"error","message":...,"type":...,"code":500}}), and every event named {@code error}
 *       ({@code event: error}): its {@code error} member, else its top-level {@code message} and {@code code},
 *       else its data as the message;</li>
 *   <li>counting: every chunk counts as a data event (llmperf counts before parsing) except the usage-only chunk
 *       ({@code choices} empty or absent, {@code usage} present, no error), which llmperf never requests and so
 *       never counts; leaving it out keeps llmperf's ITL divisor comparable;</li>
 *   <li>malformed: not a JSON object, trailing data, {@code choices} not an array, or none of {@code choices},
 *       {@code usage}, {@code error} present.</li>
 * </ul>
 */
public final class ChatCompletionChunkParser implements ChunkParser {

    private static final JsonFactory JSON = JsonFactory.builder().build();

    /** Where the text of {@code choices[0]} is. */
    private enum TextField {
        /** {@code delta.content}: a chat stream chunk. */
        DELTA_CONTENT,
        /** {@code message.content}: a whole (non-streaming) chat completion. */
        MESSAGE_CONTENT,
        /** {@code text}: a text completion, streamed or whole. */
        TEXT
    }

    private final TextField textField;

    /** Chat stream chunks: content = {@code choices[0].delta.content}. */
    public ChatCompletionChunkParser() {
        this(TextField.DELTA_CONTENT);
    }

    private ChatCompletionChunkParser(TextField textField) {
        this.textField = textField;
    }

    /** A whole non-streaming {@code chat.completion}: content = {@code choices[0].message.content}. */
    public static ChatCompletionChunkParser chatResponse() {
        return new ChatCompletionChunkParser(TextField.MESSAGE_CONTENT);
    }

    /** {@code /v1/completions} chunks and whole responses: content = {@code choices[0].text}. */
    public static ChatCompletionChunkParser textCompletion() {
        return new ChatCompletionChunkParser(TextField.TEXT);
    }

    /** The SSE event name of an error: {@code event: error}. */
    static final String ERROR_EVENT = "error";
    /** How much of an error event's data that is not JSON becomes its message. */
    private static final int ERROR_TEXT_CHARS = 200;

    @Override
    public ParsedChunk parse(byte[] data) throws MalformedChunkException {
        MalformedChunkException.requireData(null, data, 0, data.length);
        ParsedChunk common = parseCommon(data);
        return common != null ? common : parseWithJackson(data);
    }

    /**
     * An event named {@value #ERROR_EVENT} is an error whatever its data; other names are ignored, so their data must
     * be a chunk as any event's (an {@code event: ping} with empty data is malformed, as llmperf's and OpenAI's own
     * client's {@code json.loads} fail on it), said with its name.
     */
    @Override
    public ParsedChunk parse(String eventType, byte[] data) throws MalformedChunkException {
        if (ERROR_EVENT.equals(eventType)) return parseErrorEvent(data);
        MalformedChunkException.requireData(eventType, data, 0, data.length);
        return parse(data);
    }

    /**
     * The data of an {@code event: error}: its {@code error} member, else its top-level {@code message} and
     * {@code code}; data that is not a JSON object is the message itself. Never malformed: the server said error.
     */
    ParsedChunk parseErrorEvent(byte[] data) {
        String id = null;
        try (JsonParser p = JSON.createParser(data)) {
            Chunk chunk = parseObject(new JacksonCursor(p));
            id = chunk.id;
            StreamError error = chunk.error != null ? chunk.error : chunk.topLevelError();
            if (error != null) return errorChunk(id, error);
        } catch (IOException | MalformedChunkException notAnObject) {
            // the data itself is the message
        }
        String text = new String(data, StandardCharsets.UTF_8).strip();
        if (text.length() > ERROR_TEXT_CHARS) text = text.substring(0, ERROR_TEXT_CHARS) + "...";
        return errorChunk(id, new StreamError(-1, text.isEmpty() ? "error event without data" : text));
    }

    private static ParsedChunk errorChunk(String id, StreamError error) {
        return new ParsedChunk(id, null, null, true, null, null, error, null, null);
    }

    /** With {@link ByteJsonCursor}; null when it leaves {@code data} to Jackson. */
    ParsedChunk parseCommon(byte[] data) throws MalformedChunkException {
        Chunk chunk = parseCommonChunk(data);
        return chunk == null ? null : chunk.parsed;
    }

    private Chunk parseCommonChunk(byte[] data) throws MalformedChunkException {
        try {
            return parseChunk(new ByteJsonCursor(data));
        } catch (ByteJsonCursor.Unsure | IOException e) {
            return null;
        }
    }

    /**
     * One stream's parser: each event whose bytes equal the last learnt event's except for the content string is
     * answered from that event (see {@link RepeatingChunkParser}); the others are parsed in full.
     */
    @Override
    public ChunkParser forStream() {
        return new RepeatingChunkParser(this);
    }

    /**
     * {@code data} parsed in full, with where its content string's bytes are when a later event that differs only
     * there may reuse the result: parsed by {@link ByteJsonCursor}, content taken from a string whose place it
     * knows, no error member. {@code contentStart} is -1 otherwise.
     */
    Learned parseLearning(byte[] data) throws MalformedChunkException {
        Chunk chunk = parseCommonChunk(data);
        if (chunk == null) return new Learned(parseWithJackson(data), -1, -1);
        boolean reusable = chunk.contentStart >= 0 && chunk.error == null;
        return new Learned(chunk.parsed, reusable ? chunk.contentStart : -1, reusable ? chunk.contentEnd : -1);
    }

    /**
     * A full parse and where its content string is: {@code data[contentStart, contentEnd)}, the closing quote at
     * {@code contentEnd}; -1 when the result must not be reused for another event.
     */
    record Learned(ParsedChunk chunk, int contentStart, int contentEnd) {
    }

    /** With Jackson's parser, which words the errors. */
    ParsedChunk parseWithJackson(byte[] data) throws MalformedChunkException {
        try (JsonParser p = JSON.createParser(data)) {
            return parseChunk(new JacksonCursor(p)).parsed;
        } catch (JsonProcessingException e) {
            throw new MalformedChunkException("invalid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new MalformedChunkException("unreadable: " + e.getMessage());
        }
    }

    private Chunk parseChunk(JsonCursor p) throws IOException, MalformedChunkException {
        Chunk chunk = parseObject(p);
        if (chunk.error == null && "error".equals(chunk.object)) {
            chunk.error = chunk.topLevelError(); // older vLLM: {"object":"error","message":...,"code":500}
        }
        if (!chunk.hasChoices && !chunk.hasUsage && chunk.error == null) {
            throw new MalformedChunkException("no choices, usage or error member");
        }
        boolean usageOnly = chunk.choiceCount == 0 && chunk.hasUsage && chunk.error == null;
        chunk.parsed = new ParsedChunk(chunk.id, chunk.content, chunk.finishReason, !usageOnly, chunk.promptTokens,
                chunk.completionTokens, chunk.error, chunk.reasoning(), chunk.cachedTokens);
        return chunk;
    }

    /** One JSON object, whole, its members read into a {@link Chunk}; nothing is judged yet. */
    private Chunk parseObject(JsonCursor p) throws IOException, MalformedChunkException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw new MalformedChunkException("not a JSON object");
        }
        Chunk chunk = new Chunk();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            switch (name) {
                case "id":
                    chunk.id = value == JsonToken.VALUE_STRING ? p.getText() : skip(p);
                    break;
                case "choices":
                    parseChoices(p, value, chunk);
                    break;
                case "usage":
                    parseUsage(p, value, chunk);
                    break;
                case "error":
                    chunk.error = parseError(p, value);
                    break;
                case "object":
                    chunk.object = value == JsonToken.VALUE_STRING ? p.getText() : skip(p);
                    break;
                case "message":
                    chunk.message = value == JsonToken.VALUE_STRING ? p.getText() : skip(p);
                    break;
                case "code":
                    chunk.code = numericCode(p, value);
                    chunk.hasCode = true;
                    break;
                default:
                    p.skipChildren();
            }
        }
        if (p.currentToken() != JsonToken.END_OBJECT) {
            throw new MalformedChunkException("unterminated JSON object");
        }
        if (p.nextToken() != null) {
            throw new MalformedChunkException("trailing data after the JSON object");
        }
        return chunk;
    }

    private void parseChoices(JsonCursor p, JsonToken value, Chunk chunk)
            throws IOException, MalformedChunkException {
        if (value == JsonToken.VALUE_NULL) return;
        if (value != JsonToken.START_ARRAY) {
            throw new MalformedChunkException("choices is not an array");
        }
        chunk.hasChoices = true;
        JsonToken element;
        while ((element = p.nextToken()) != JsonToken.END_ARRAY) {
            if (element == null) {
                throw new MalformedChunkException("unterminated choices array");
            }
            if (chunk.choiceCount++ == 0 && element == JsonToken.START_OBJECT) {
                parseFirstChoice(p, chunk);
            } else {
                p.skipChildren(); // llmperf reads choices[0] only
            }
        }
    }

    private void parseFirstChoice(JsonCursor p, Chunk chunk) throws IOException {
        String container = textField == TextField.DELTA_CONTENT ? "delta"
                : textField == TextField.MESSAGE_CONTENT ? "message" : null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            if (container == null && "text".equals(name) && value == JsonToken.VALUE_STRING) {
                chunk.content(p);
            } else if (name.equals(container) && value == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    JsonToken v = p.nextToken();
                    if (v != JsonToken.VALUE_STRING) {
                        p.skipChildren();
                    } else if ("content".equals(field)) {
                        chunk.content(p);
                    } else if ("reasoning_content".equals(field)) {
                        chunk.reasoningContent = p.getText();
                    } else if ("reasoning".equals(field)) {
                        chunk.reasoning = p.getText();
                    } else {
                        p.skipChildren();
                    }
                }
            } else if ("finish_reason".equals(name) && value == JsonToken.VALUE_STRING) {
                chunk.finishReason = p.getText();
            } else {
                p.skipChildren();
            }
        }
    }

    private static void parseUsage(JsonCursor p, JsonToken value, Chunk chunk) throws IOException {
        if (value != JsonToken.START_OBJECT) {
            p.skipChildren();
            return;
        }
        chunk.hasUsage = true;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            if ("prompt_tokens".equals(name) && v == JsonToken.VALUE_NUMBER_INT) {
                chunk.promptTokens = p.getIntValue();
            } else if ("completion_tokens".equals(name) && v == JsonToken.VALUE_NUMBER_INT) {
                chunk.completionTokens = p.getIntValue();
            } else if ("prompt_tokens_details".equals(name) && v == JsonToken.START_OBJECT) {
                chunk.cachedTokens = cachedTokens(p);
            } else {
                p.skipChildren();
            }
        }
    }

    /** {@code cached_tokens} of a {@code prompt_tokens_details} object (the cursor at its start), or null. */
    private static Integer cachedTokens(JsonCursor p) throws IOException {
        Integer cached = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            if ("cached_tokens".equals(name) && v == JsonToken.VALUE_NUMBER_INT) {
                cached = p.getIntValue();
            } else {
                p.skipChildren();
            }
        }
        return cached;
    }

    private static StreamError parseError(JsonCursor p, JsonToken value) throws IOException {
        switch (value) {
            case VALUE_NULL:
                return null;
            case VALUE_STRING:
                return new StreamError(-1, p.getText());
            case START_OBJECT: {
                String message = null;
                int code = -1;
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    JsonToken v = p.nextToken();
                    if ("message".equals(name) && v == JsonToken.VALUE_STRING) {
                        message = p.getText();
                    } else if ("code".equals(name)) {
                        code = numericCode(p, v);
                    } else {
                        p.skipChildren();
                    }
                }
                return new StreamError(code, message != null ? message : "error object without a message");
            }
            default:
                p.skipChildren();
                return new StreamError(-1, "error member of unexpected type " + value);
        }
    }

    private static int numericCode(JsonCursor p, JsonToken v) throws IOException {
        if (v == JsonToken.VALUE_NUMBER_INT) {
            return p.isIntSized() ? p.getIntValue() : -1;
        }
        if (v == JsonToken.VALUE_STRING) {
            String s = p.getText().trim();
            if (!s.isEmpty() && s.length() <= 9 && s.chars().allMatch(c -> c >= '0' && c <= '9')) {
                return Integer.parseInt(s);
            }
            return -1;
        }
        p.skipChildren();
        return -1;
    }

    private static String skip(JsonCursor p) throws IOException {
        p.skipChildren();
        return null;
    }

    /** Mutable scratch for one parse. */
    private static final class Chunk {
        String id;
        String content;
        String finishReason;
        boolean hasChoices;
        int choiceCount;
        boolean hasUsage;
        Integer promptTokens;
        Integer completionTokens;
        Integer cachedTokens;
        StreamError error;
        /** Top-level {@code object}, {@code message} and {@code code}: an error's, when {@code object} is "error". */
        String object;
        String message;
        int code = -1;
        boolean hasCode;
        String reasoningContent;
        String reasoning;
        /** Where the content string's bytes are, -1 when unknown; and the result. */
        int contentStart = -1;
        int contentEnd = -1;
        ParsedChunk parsed;

        /** The content is the string {@code p} is on (a later one replaces it, as in Jackson's reading). */
        void content(JsonCursor p) throws IOException {
            content = p.getText();
            contentStart = p.stringStart();
            contentEnd = p.stringEnd();
        }

        /** The top-level message and code as an error, or null when the object has neither. */
        StreamError topLevelError() {
            if (message == null && !hasCode) return null;
            return new StreamError(code, message != null ? message : "error object without a message");
        }

        /** {@code reasoning_content} when it has text, else {@code reasoning}. */
        String reasoning() {
            return reasoningContent != null && !reasoningContent.isEmpty() ? reasoningContent : reasoning;
        }
    }
}

package io.llmperf4j.engine.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;

/**
 * A whole OpenAI embeddings response ({@code {"object":"list","data":[..],"usage":{"prompt_tokens":n,..}}}), read
 * with Jackson's streaming parser so the vectors are skipped, never materialised. Prompt tokens =
 * {@code usage.prompt_tokens}; there is no content, finish reason or completion token count. An {@code error} member
 * is a {@link StreamError} (code as for chat: {@code error.code} when numeric, else -1). Malformed: not one JSON
 * object, or neither {@code data} (an array) nor {@code error} present.
 */
public final class EmbeddingsResponseParser implements ChunkParser {

    private static final JsonFactory JSON = JsonFactory.builder().build();

    @Override
    public ParsedChunk parse(byte[] data) throws MalformedChunkException {
        MalformedChunkException.requireData(null, data, 0, data.length);
        try (JsonParser p = JSON.createParser(data)) {
            if (p.nextToken() != JsonToken.START_OBJECT) throw new MalformedChunkException("not a JSON object");
            boolean hasData = false;
            Integer promptTokens = null;
            StreamError error = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if ("data".equals(name) && value == JsonToken.START_ARRAY) {
                    hasData = true;
                    p.skipChildren();
                } else if ("usage".equals(name) && value == JsonToken.START_OBJECT) {
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String field = p.currentName();
                        JsonToken v = p.nextToken();
                        if ("prompt_tokens".equals(field) && v == JsonToken.VALUE_NUMBER_INT) {
                            promptTokens = p.getIntValue();
                        } else {
                            p.skipChildren();
                        }
                    }
                } else if ("error".equals(name) && value != JsonToken.VALUE_NULL) {
                    error = errorOf(p, value);
                } else {
                    p.skipChildren();
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT) throw new MalformedChunkException("unterminated JSON object");
            if (p.nextToken() != null) throw new MalformedChunkException("trailing data after the JSON object");
            if (!hasData && error == null) throw new MalformedChunkException("no data or error member");
            return new ParsedChunk(null, null, null, true, promptTokens, null, error);
        } catch (JsonProcessingException e) {
            throw new MalformedChunkException("invalid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new MalformedChunkException("unreadable: " + e.getMessage());
        }
    }

    private static StreamError errorOf(JsonParser p, JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_STRING) return new StreamError(-1, p.getText());
        if (value != JsonToken.START_OBJECT) {
            p.skipChildren();
            return new StreamError(-1, "error member of unexpected type " + value);
        }
        String message = null;
        int code = -1;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            if ("message".equals(name) && v == JsonToken.VALUE_STRING) {
                message = p.getText();
            } else if ("code".equals(name) && v == JsonToken.VALUE_NUMBER_INT
                    && p.getNumberType() == JsonParser.NumberType.INT) {
                code = p.getIntValue();
            } else {
                p.skipChildren();
            }
        }
        return new StreamError(code, message != null ? message : "error object without a message");
    }
}

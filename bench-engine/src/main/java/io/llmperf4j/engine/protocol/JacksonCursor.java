package io.llmperf4j.engine.protocol;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;

/** {@link JsonCursor} on Jackson's streaming parser. */
final class JacksonCursor implements JsonCursor {
    private final JsonParser parser;

    JacksonCursor(JsonParser parser) {
        this.parser = parser;
    }

    @Override
    public JsonToken nextToken() throws IOException {
        return parser.nextToken();
    }

    @Override
    public JsonToken currentToken() {
        return parser.currentToken();
    }

    @Override
    public String currentName() throws IOException {
        return parser.currentName();
    }

    @Override
    public String getText() throws IOException {
        return parser.getText();
    }

    @Override
    public int getIntValue() throws IOException {
        return parser.getIntValue();
    }

    @Override
    public boolean isIntSized() throws IOException {
        return parser.getNumberType() == JsonParser.NumberType.INT;
    }

    @Override
    public void skipChildren() throws IOException {
        parser.skipChildren();
    }
}

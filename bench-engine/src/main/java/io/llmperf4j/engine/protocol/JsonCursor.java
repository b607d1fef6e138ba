package io.llmperf4j.engine.protocol;

import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;

/**
 * The few calls of a streaming JSON parser the chunk parsers make, with Jackson's meaning: {@link JacksonCursor}
 * runs them on Jackson, {@link ByteJsonCursor} on a scanner of its own for the common chunk, which gives up
 * ({@link ByteJsonCursor.Unsure}) wherever Jackson might answer differently.
 */
interface JsonCursor {

    /** The next token, or null at the end of the input. */
    JsonToken nextToken() throws IOException;

    JsonToken currentToken();

    /** The current field's name (after a {@link JsonToken#FIELD_NAME}, and on its value). */
    String currentName() throws IOException;

    /** The text of the current string value. */
    String getText() throws IOException;

    /** The current integer value; for an integer that fits in an int. */
    int getIntValue() throws IOException;

    /** Whether the current integer fits in an int (Jackson's {@code NumberType.INT}). */
    boolean isIntSized() throws IOException;

    /** Skips the current object or array to its end token; a no-op on a scalar. */
    void skipChildren() throws IOException;

    /**
     * Where the current string value's bytes are in the input: the index just past its opening quote, or -1 when
     * this cursor cannot tell (Jackson's).
     */
    default int stringStart() {
        return -1;
    }

    /** The index of the current string value's closing quote, or -1 ({@link #stringStart()}). */
    default int stringEnd() {
        return -1;
    }
}

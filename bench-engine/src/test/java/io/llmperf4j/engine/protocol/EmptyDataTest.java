package io.llmperf4j.engine.protocol;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Empty (or blank) data reads the same for every API's parser, one rule ({@link MalformedChunkException#requireData}):
 * "empty data", with the event's type when it had one; an {@code event: error} without data stays the server's
 * error. QA (faults): it was "not a JSON object", the failure then quoting nothing.
 */
class EmptyDataTest {

    private static final byte[] EMPTY = new byte[0];
    private static final byte[] BLANK = " \r\n".getBytes(StandardCharsets.UTF_8);

    @Test
    void everyParserSaysTheDataWasEmptyAndNamesTheEvent() {
        ChunkParser[] parsers = {new ChatCompletionChunkParser(), new ChatCompletionChunkParser().forStream(),
                ChatCompletionChunkParser.textCompletion(), new AnthropicEventParser()};
        for (ChunkParser parser : parsers) {
            assertEquals("empty data in event: ping, not a JSON object", assertThrows(MalformedChunkException.class,
                    () -> parser.parse("ping", EMPTY, 0, 0)).getMessage(), parser.toString());
            assertEquals("empty data, not a JSON object", assertThrows(MalformedChunkException.class,
                    () -> parser.parse(null, BLANK, 0, BLANK.length)).getMessage(), parser.toString());
        }
        assertEquals("empty data, not a JSON object", assertThrows(MalformedChunkException.class,
                () -> new EmbeddingsResponseParser().parse(null, EMPTY)).getMessage());
        assertEquals("empty data, not a JSON object", assertThrows(MalformedChunkException.class,
                () -> ChatCompletionChunkParser.chatResponse().parse(null, BLANK)).getMessage());
        assertEquals("empty data in event: a\\x1bb, not a JSON object", assertThrows(MalformedChunkException.class,
                () -> new ChatCompletionChunkParser().parse("a\u001bb", EMPTY)).getMessage(),
                "the type is the server's text: escaped");
    }

    @Test
    void anErrorEventWithoutDataIsStillTheServersError() throws MalformedChunkException {
        ParsedChunk chunk = new ChatCompletionChunkParser().forStream().parse("error", EMPTY, 0, 0);
        assertNotNull(chunk.error());
        assertEquals("error event without data", chunk.error().message());
    }
}

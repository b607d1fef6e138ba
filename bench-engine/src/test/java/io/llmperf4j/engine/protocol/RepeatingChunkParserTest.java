package io.llmperf4j.engine.protocol;

import io.llmperf4j.engine.testserver.Streams;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

/** A stream's parser gives, event by event, exactly what the stateless parser gives for the same bytes. */
class RepeatingChunkParserTest {

    private static final String P = "{\"id\":\"c-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
            + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"";
    private static final String S = "\"},\"logprobs\":null,\"finish_reason\":null}]}";

    private static String event(String contentBody) {
        return P + contentBody + S;
    }

    /**
     * Each event through one stream parser and through a fresh stateless one: the same chunk or the same error. The
     * stream parser gets each event as the engine lends it, a range of a buffer it reuses: here between bytes that
     * look like JSON, and overwritten after each call, so a parser that kept the lent bytes would fail the next event.
     */
    private static void assertSameAsFullParse(ChatCompletionChunkParser full, List<String> events) {
        ChunkParser stream = full.forStream();
        byte[] lent = new byte[4096];
        int from = 7;
        for (String event : events) {
            byte[] data = event.getBytes(StandardCharsets.UTF_8);
            Object expected;
            try {
                expected = full.parse(data);
            } catch (MalformedChunkException e) {
                expected = "malformed: " + e.getMessage();
            }
            Object actual;
            try {
                Arrays.fill(lent, (byte) '"');
                System.arraycopy(data, 0, lent, from, data.length);
                actual = stream.parse(null, lent, from, from + data.length);
                Arrays.fill(lent, (byte) '}');
            } catch (MalformedChunkException e) {
                actual = "malformed: " + e.getMessage();
            }
            assertEquals(expected, actual, event);
        }
    }

    @Test
    void aTypicalStreamParsesAsEachEventAlone() {
        assertSameAsFullParse(new ChatCompletionChunkParser(), List.of(Streams.role(), Streams.content("Hello"),
                Streams.content(" wor"), Streams.content("ld é \"quoted\"\n"), Streams.content(""),
                Streams.content("😀 \\ / \t"), Streams.content("again"), Streams.finish("length"),
                Streams.usage(12, 3), Streams.content("after usage")));
    }

    @Test
    void contentOfEveryKindBetweenTheSameBytes() {
        assertSameAsFullParse(new ChatCompletionChunkParser(), List.of(event("first"), event(" word"), event(""),
                event("\\\"q\\\""), event("\\u00e9\\n"), event("é日本"), event("\\\\"), event("x\\u0041y"),
                event("tail")));
    }

    @Test
    void aQuoteInTheMiddleChangesTheStructureAndIsParsedInFull() {
        // same prefix and suffix, but the middle closes the string: a finish reason and a second delta follow
        String sneaky = event("a\"},\"finish_reason\":\"stop\",\"delta\":{\"content\":\"b");
        assertSameAsFullParse(new ChatCompletionChunkParser(), List.of(event("one"), sneaky, event("two")));
    }

    @Test
    void malformedMiddlesFailAsTheFullParseFails() {
        assertSameAsFullParse(new ChatCompletionChunkParser(), List.of(event("ok"),
                event("ends in a backslash\\"), // escapes the closing quote
                event("raw\ncontrol"), event("bad \\x escape"), event("ok again"),
                event("\\u12"), event("fine")));
    }

    @Test
    void invalidUtf8InTheMiddleFailsAsTheFullParseFails() {
        ChatCompletionChunkParser full = new ChatCompletionChunkParser();
        ChunkParser stream = full.forStream();
        byte[] good = event("ok").getBytes(StandardCharsets.UTF_8);
        byte[] prefix = P.getBytes(StandardCharsets.UTF_8);
        byte[] suffix = S.getBytes(StandardCharsets.UTF_8);
        byte[] bad = new byte[prefix.length + 2 + suffix.length];
        System.arraycopy(prefix, 0, bad, 0, prefix.length);
        bad[prefix.length] = (byte) 0xC3; // a lead byte followed by ASCII: not UTF-8
        bad[prefix.length + 1] = 'x';
        System.arraycopy(suffix, 0, bad, prefix.length + 2, suffix.length);
        Object expected;
        try {
            expected = full.parse(bad);
        } catch (MalformedChunkException e) {
            expected = e.getMessage();
        }
        Object actual;
        try {
            stream.parse(good);
            actual = stream.parse(bad);
        } catch (MalformedChunkException e) {
            actual = e.getMessage();
        }
        assertEquals(expected, actual);
    }

    @Test
    void textCompletionChunksToo() {
        String p = "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\"";
        String s = "\",\"logprobs\":null,\"finish_reason\":null}]}";
        assertSameAsFullParse(ChatCompletionChunkParser.textCompletion(), List.of(p + "a" + s, p + "b" + s,
                p + "\\\"" + s, p + "c\",\"finish_reason\":\"stop" + s));
    }

    @Test
    void aRepeatedEventReusesTheLearntValuesAndAChangedOneIsParsedAgain() throws Exception {
        ChunkParser stream = new ChatCompletionChunkParser().forStream();
        ParsedChunk first = stream.parse(event("a").getBytes(StandardCharsets.UTF_8));
        ParsedChunk second = stream.parse(event("b").getBytes(StandardCharsets.UTF_8));
        assertEquals("b", second.content());
        assertSame(first.responseId(), second.responseId(), "answered from the learnt event");
        ParsedChunk other = stream.parse(event("c").replace("\"c-1\"", "\"c-2\"").getBytes(StandardCharsets.UTF_8));
        assertEquals("c-2", other.responseId());
        assertNotSame(first.responseId(), other.responseId());
    }

    @Test
    void theStatelessParsersOwnStreamParserIsItselfForOtherApis() {
        ChunkParser plain = data -> new ParsedChunk(null, "x", null, true, null, null, null);
        assertSame(plain, plain.forStream());
    }
}

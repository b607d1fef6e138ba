package io.llmperf4j.engine.protocol;

import io.llmperf4j.engine.testserver.Streams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChatCompletionChunkParserTest {

    private final ChatCompletionChunkParser parser = new ChatCompletionChunkParser();

    private ParsedChunk parse(String json) throws MalformedChunkException {
        return parser.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void roleChunkCountsButHasNoContent() throws Exception {
        ParsedChunk c = parse(Streams.role());
        assertEquals(Streams.RESPONSE_ID, c.responseId());
        assertEquals("", c.content());
        assertFalse(c.hasContent());
        assertTrue(c.countsAsDataEvent());
        assertNull(c.finishReason());
        assertNull(c.error());
    }

    @Test
    void contentChunk() throws Exception {
        ParsedChunk c = parse(Streams.content("Hé \"llo\"\n"));
        assertEquals("Hé \"llo\"\n", c.content());
        assertTrue(c.hasContent());
        assertTrue(c.countsAsDataEvent());
    }

    @Test
    void finishChunk() throws Exception {
        ParsedChunk c = parse(Streams.finish("length"));
        assertEquals("length", c.finishReason());
        assertFalse(c.hasContent());
        assertTrue(c.countsAsDataEvent());
    }

    @Test
    void usageOnlyChunkIsNotCountedAsADataEvent() throws Exception {
        ParsedChunk c = parse(Streams.usage(12, 3));
        assertEquals(12, c.usagePromptTokens());
        assertEquals(3, c.usageCompletionTokens());
        assertFalse(c.countsAsDataEvent(), "llmperf never sees it, so it must not change the ITL divisor");
    }

    @Test
    void usageOnEveryChunkStillCounts() throws Exception {
        ParsedChunk c = parse("{\"choices\":[{\"delta\":{\"content\":\"x\"}}],\"usage\":{\"prompt_tokens\":5,"
                + "\"completion_tokens\":1}}");
        assertTrue(c.countsAsDataEvent());
        assertEquals("x", c.content());
        assertEquals(1, c.usageCompletionTokens());
    }

    @Test
    void onlyTheFirstChoiceIsRead() throws Exception {
        ParsedChunk c = parse("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\",\"tool_calls\":[{\"x\":[1,{}]}]},"
                + "\"logprobs\":{\"content\":[{\"token\":\"q\"}]}},{\"index\":1,\"delta\":{\"content\":\"b\"},"
                + "\"finish_reason\":\"stop\"}]}");
        assertEquals("a", c.content());
        assertNull(c.finishReason());
    }

    @Test
    void nullContentAndReasoningContentAreNotContent() throws Exception {
        ParsedChunk c = parse("{\"choices\":[{\"delta\":{\"content\":null,\"reasoning_content\":\"think\"}}]}");
        assertFalse(c.hasContent());
        assertTrue(c.countsAsDataEvent());
        assertEquals("think", c.reasoning());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"reasoning_content\":\"a\"}|a|",
            "{\"reasoning\":\"b\",\"content\":\"\"}|b|",
            "{\"reasoning_content\":\"\",\"reasoning\":\"c\"}|c|",
            "{\"reasoning_content\":\"a\",\"reasoning\":\"a\"}|a|",
            "{\"reasoning_content\":\" so\",\"content\":\"Yes\"}|' so'|Yes",
            "{\"reasoning\":{\"summary\":[1]},\"content\":\"x\"}||x",
            "{\"reasoning_content\":null}||"})
    void reasoningIsReadApartFromContent(String delta, String reasoning, String content) throws Exception {
        ParsedChunk c = parse("{\"choices\":[{\"delta\":" + delta + "}]}");
        assertEquals(reasoning != null, c.hasReasoning(), delta);
        if (reasoning != null) assertEquals(reasoning, c.reasoning());
        assertEquals(content != null, c.hasContent(), delta);
        if (content != null) assertEquals(content, c.content());
    }

    @Test
    void wholeResponseReasoningIsInTheMessage() throws Exception {
        ParsedChunk c = ChatCompletionChunkParser.chatResponse().parse(("{\"choices\":[{\"message\":{\"role\":"
                + "\"assistant\",\"reasoning_content\":\"hm\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}")
                .getBytes(StandardCharsets.UTF_8));
        assertEquals("hm", c.reasoning());
        assertEquals("ok", c.content());
    }

    @Test
    void emptyChoicesWithoutUsageStillCounts() throws Exception {
        // Azure's prompt_filter_results chunk: llmperf counts it before parsing
        ParsedChunk c = parse("{\"choices\":[],\"prompt_filter_results\":[{\"prompt_index\":0}]}");
        assertTrue(c.countsAsDataEvent());
        assertFalse(c.hasContent());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"error\":{\"message\":\"overloaded\",\"code\":503}}|503|overloaded",
            "{\"error\":{\"message\":\"slow down\",\"code\":\"429\"}}|429|slow down",
            "{\"error\":{\"message\":\"bad\",\"code\":\"server_error\"}}|-1|bad",
            "{\"error\":{\"message\":\"big\",\"code\":12345678901}}|-1|big",
            "{\"error\":{\"code\":400,\"type\":\"x\"}}|400|error object without a message",
            "{\"error\":\"plain text\"}|-1|plain text",
            "{\"error\":{\"message\":\"m\",\"code\":{\"nested\":1}},\"choices\":[]}|-1|m",
            // older vLLM: the error is the top-level object
            "{\"object\":\"error\",\"message\":\"out of KV cache\",\"type\":\"InternalServerError\",\"param\":null,\"code\":500}|500|out of KV cache",
            "{\"object\":\"error\",\"message\":\"no code\"}|-1|no code",
            "{\"object\":\"error\",\"code\":\"503\"}|503|error object without a message"})
    void errorObjects(String json, int code, String message) throws Exception {
        ParsedChunk c = parse(json);
        assertEquals(new StreamError(code, message), c.error());
        assertTrue(c.countsAsDataEvent(), "llmperf counts the error event before it raises");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"message\":\"TGI style error event\",\"code\":\"overloaded\"}|-1|TGI style error event",
            "{\"message\":\"busy\",\"code\":503}|503|busy",
            "{\"error\":{\"message\":\"wrapped\",\"code\":429}}|429|wrapped",
            "{\"id\":\"x\",\"choices\":[]}|-1|{\"id\":\"x\",\"choices\":[]}",
            "upstream timed out|-1|upstream timed out"})
    void anEventNamedErrorIsAnErrorWhateverItsData(String data, int code, String message) throws Exception {
        byte[] bytes = data.getBytes(StandardCharsets.UTF_8);
        assertEquals(new StreamError(code, message), parser.parse("error", bytes).error());
        ChunkParser stream = parser.forStream();
        stream.parse(null, "{\"choices\":[{\"delta\":{\"content\":\"a\"}}]}".getBytes(StandardCharsets.UTF_8));
        assertEquals(new StreamError(code, message), stream.parse("error", bytes, 0, bytes.length).error(),
                "the stream's parser too");
        assertTrue(parser.parse("error", bytes).countsAsDataEvent());
    }

    @Test
    void otherEventNamesAreIgnored() throws Exception {
        byte[] bytes = "{\"message\":\"hi\"}".getBytes(StandardCharsets.UTF_8);
        assertThrows(MalformedChunkException.class, () -> parser.parse("message", bytes),
                "a top-level message is an error only in an error event or with \"object\": \"error\"");
    }

    @Test
    void nullErrorIsNoError() throws Exception {
        assertNull(parse("{\"error\":null,\"choices\":[]}").error());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"choices\": [oops",
            "not json",
            "[1,2]",
            "\"text\"",
            "{\"choices\":[]} trailing",
            "{\"choices\":[]}{\"choices\":[]}",
            "{\"id\":\"x\"}",
            "{\"choices\":{\"delta\":{}}}",
            "{\"choices\":[{\"delta\":{\"content\":\"x\"}}",
            ""})
    void malformed(String json) {
        MalformedChunkException e = assertThrows(MalformedChunkException.class, () -> parse(json));
        assertFalse(e.getMessage().isBlank());
    }
}

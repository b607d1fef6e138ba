package io.llmperf4j.engine.client;

import io.llmperf4j.engine.protocol.AnthropicEventParser;
import io.llmperf4j.engine.protocol.ChatCompletionChunkParser;
import io.llmperf4j.engine.protocol.EmbeddingsResponseParser;
import io.llmperf4j.engine.protocol.MalformedChunkException;
import io.llmperf4j.engine.protocol.ParsedChunk;
import io.llmperf4j.engine.sse.SseEvent;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bodies, URL rules, headers and chunk interpretation of each {@link LlmApi}. */
class ApiBodiesAndUrlsTest {

    private static ClientConfig config(Map<String, Object> params, boolean includeUsage) {
        return ClientConfig.builder(URI.create("http://127.0.0.1:1/v1/x"), "m")
                .additionalSamplingParams(params).includeUsage(includeUsage).build();
    }

    private static String body(LlmApi api, ClientConfig config, RequestSpec spec) {
        return new String(api.body(config, spec), StandardCharsets.UTF_8);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void completionsBodyKeyOrderAndOverride() {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("temperature", 0.5);
        params.put("max_tokens", 7);
        assertEquals("{\"model\":\"m\",\"prompt\":\"hi\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                        + "\"max_tokens\":7,\"temperature\":0.5}",
                body(new OpenAiCompletionsApi(true), config(params, true), new RequestSpec(0, "hi", 1, 20)));
        assertEquals("{\"model\":\"m\",\"prompt\":\"hi\",\"stream\":false,\"max_tokens\":20}",
                body(new OpenAiCompletionsApi(false), config(Map.of(), true), new RequestSpec(0, "hi", 1, 20)));
    }

    @Test
    void chatNoStreamBodyHasNoStreamOptions() {
        assertEquals("{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"\"},{\"role\":\"user\","
                        + "\"content\":\"hi\"}],\"stream\":false,\"max_tokens\":20}",
                body(new OpenAiChatApi(false), config(Map.of(), true), new RequestSpec(0, "hi", 1, 20)));
        assertTrue(body(new OpenAiChatApi(true), config(Map.of(), true), new RequestSpec(0, "hi", 1, 20))
                .contains("\"stream\":true,\"stream_options\":{\"include_usage\":true}"));
    }

    @Test
    void anthropicBodyAndHeaders() {
        AnthropicMessagesApi api = new AnthropicMessagesApi();
        assertEquals("{\"model\":\"m\",\"max_tokens\":20,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                        + "\"stream\":true,\"temperature\":0}",
                body(api, config(Map.of("temperature", 0), true), new RequestSpec(0, "hi", 1, 20)));
        assertTrue(body(api, config(Map.of(), true), new RequestSpec(0, "hi", 1, RequestSpec.NO_MAX_TOKENS))
                .contains("\"max_tokens\":" + AnthropicMessagesApi.DEFAULT_MAX_TOKENS));
        assertEquals(Map.of("x-api-key", "k", "anthropic-version", "2023-06-01"), api.headers(Secret.of("k")));
        assertEquals(Map.of("anthropic-version", "2023-06-01"), api.headers(Secret.none()));
        assertTrue(body(new AnthropicMessagesApi(false), config(Map.of(), true), new RequestSpec(0, "hi", 1, 20))
                .contains("\"stream\":false"));
        assertFalse(new AnthropicMessagesApi(false).streaming());
        assertEquals(Map.of("Authorization", "Bearer k"), new OpenAiChatApi(true).headers(Secret.of("k")));
    }

    @Test
    void embeddingsBody() {
        EmbeddingsApi api = new EmbeddingsApi(s -> List.of("a", "b"));
        assertEquals("{\"model\":\"m\",\"input\":[\"a\",\"b\"],\"encoding_format\":\"float\"}",
                body(api, config(Map.of("encoding_format", "float"), true), new RequestSpec(0, "a", 1, 0)));
        assertEquals("{\"model\":\"m\",\"input\":[\"x\"]}",
                body(new EmbeddingsApi(), config(Map.of(), true), new RequestSpec(0, "x", 1, 0)));
        assertFalse(api.streaming());
    }

    @Test
    void urlRules() {
        assertEquals("http://h:8/v1/completions", new OpenAiCompletionsApi(true).endpoint("http://h:8/v1").toString());
        assertEquals("http://h:8/v1/completions", new OpenAiCompletionsApi(true).endpoint("http://h:8/v1/").toString());
        assertEquals("http://h:8/v1/completions",
                new OpenAiCompletionsApi(true).endpoint("http://h:8/v1/completions/").toString());
        assertThrows(IllegalArgumentException.class,
                () -> new OpenAiCompletionsApi(true).endpoint("http://h:8/v1/chat/completions"));
        assertEquals("https://api.anthropic.com/v1/messages",
                new AnthropicMessagesApi().endpoint("https://api.anthropic.com/v1").toString());
        assertEquals("https://api.anthropic.com/v1/messages",
                new AnthropicMessagesApi().endpoint("https://api.anthropic.com/v1/messages").toString());
        assertEquals("http://h/v1/embeddings?api-version=1",
                new EmbeddingsApi().endpoint("http://h/v1?api-version=1").toString());
        assertEquals("http://h/v1/chat/completions", new OpenAiChatApi(false).endpoint("http://h/v1").toString());
        assertThrows(IllegalArgumentException.class, () -> new EmbeddingsApi().endpoint("ftp://h/v1"));
    }

    @Test
    void anthropicEvents() throws Exception {
        AnthropicEventParser p = new AnthropicEventParser();
        ParsedChunk start = p.parse("message_start", b("{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\","
                + "\"usage\":{\"input_tokens\":25,\"output_tokens\":1}}}"));
        assertEquals("msg_1", start.responseId());
        assertEquals(25, start.usagePromptTokens());
        assertNull(start.usageCompletionTokens());
        assertFalse(start.countsAsDataEvent());
        ParsedChunk delta = p.parse("content_block_delta", b("{\"type\":\"content_block_delta\",\"index\":0,"
                + "\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}"));
        assertEquals("Hello", delta.content());
        assertTrue(delta.countsAsDataEvent());
        ParsedChunk md = p.parse("message_delta", b("{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
                + "\"end_turn\"},\"usage\":{\"output_tokens\":15}}"));
        assertEquals("end_turn", md.finishReason());
        assertEquals(15, md.usageCompletionTokens());
        assertFalse(p.parse("ping", b("{\"type\":\"ping\"}")).countsAsDataEvent());
        // without an event: line, the data's type decides
        assertEquals("Hi", p.parse(null, b("{\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\","
                + "\"text\":\"Hi\"}}")).content());
        ParsedChunk error = p.parse("error", b("{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
                + "\"message\":\"Overloaded\"}}"));
        assertEquals("overloaded_error: Overloaded", error.error().message());
        assertThrows(MalformedChunkException.class, () -> p.parse("content_block_delta", b("{\"delta\":{\"text\":\"")));
        assertThrows(MalformedChunkException.class, () -> p.parse(null, b("{}")));
        AnthropicMessagesApi api = new AnthropicMessagesApi();
        assertTrue(api.isEndOfStream(new SseEvent("message_stop", b("{\"type\":\"message_stop\"}"), 0)));
        assertFalse(api.isEndOfStream(new SseEvent(null, b("[DONE]"), 0)));
    }

    @Test
    void wholeResponses() throws Exception {
        ParsedChunk chat = ChatCompletionChunkParser.chatResponse().parse(b("{\"id\":\"c1\",\"choices\":[{\"index\":0,"
                + "\"message\":{\"role\":\"assistant\",\"content\":\"Hi there\"},\"finish_reason\":\"stop\"}],"
                + "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}"));
        assertEquals("Hi there", chat.content());
        assertEquals("stop", chat.finishReason());
        assertEquals(2, chat.usageCompletionTokens());
        ParsedChunk text = ChatCompletionChunkParser.textCompletion().parse(b("{\"id\":\"t1\",\"choices\":[{\"text\":"
                + "\" ok\",\"finish_reason\":\"length\"}]}"));
        assertEquals(" ok", text.content());
        assertEquals("t1", text.responseId());
        ParsedChunk emb = new EmbeddingsResponseParser().parse(b("{\"object\":\"list\",\"data\":[{\"embedding\":"
                + "[0.1,0.2]}],\"usage\":{\"prompt_tokens\":9,\"total_tokens\":9}}"));
        assertEquals(9, emb.usagePromptTokens());
        assertFalse(emb.hasContent());
        assertEquals("bad", new EmbeddingsResponseParser().parse(b("{\"error\":{\"message\":\"bad\"}}"))
                .error().message());
        assertThrows(MalformedChunkException.class, () -> new EmbeddingsResponseParser().parse(b("{\"data\":[")));

        AnthropicEventParser message = AnthropicEventParser.wholeMessage();
        ParsedChunk whole = message.parse(null, b("{\"id\":\"msg_9\",\"type\":\"message\",\"role\":\"assistant\","
                + "\"content\":[{\"type\":\"text\",\"text\":\"Hello\"},{\"type\":\"tool_use\",\"id\":\"t\"},"
                + "{\"type\":\"text\",\"text\":\" there\"}],\"stop_reason\":\"end_turn\","
                + "\"usage\":{\"input_tokens\":7,\"output_tokens\":2}}"));
        assertEquals("Hello there", whole.content());
        assertEquals("msg_9", whole.responseId());
        assertEquals("end_turn", whole.finishReason());
        assertEquals(7, whole.usagePromptTokens());
        assertEquals(2, whole.usageCompletionTokens());
        assertEquals("overloaded_error: busy", message.parse(null, b("{\"type\":\"error\",\"error\":"
                + "{\"type\":\"overloaded_error\",\"message\":\"busy\"}}")).error().message());
        assertThrows(MalformedChunkException.class, () -> message.parse(null, b("{\"type\":\"message\",\"id\":\"m\"}")));
        assertThrows(MalformedChunkException.class, () -> message.parse(null, b("{\"type\":\"ping\"}")));
        assertThrows(MalformedChunkException.class, () -> message.parse(null, b("{\"type\":\"message\",\"content\":[")));
    }
}

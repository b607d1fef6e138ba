package io.llmperf4j.engine.protocol;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The server's prefix-cache hits as OpenAI/vLLM and Anthropic report them. */
class CachedTokensParsingTest {

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void openAiUsageChunkCarriesPromptTokensDetails() throws Exception {
        ParsedChunk chunk = new ChatCompletionChunkParser().parse(bytes("{\"id\":\"c\",\"choices\":[],\"usage\":"
                + "{\"prompt_tokens\":600,\"completion_tokens\":9,\"total_tokens\":609,"
                + "\"prompt_tokens_details\":{\"audio_tokens\":null,\"cached_tokens\":512}}}"));
        assertEquals(600, chunk.usagePromptTokens());
        assertEquals(512, chunk.usageCachedTokens());
        assertEquals(9, chunk.usageCompletionTokens());
    }

    @Test
    void absentDetailsAreNull() throws Exception {
        ParsedChunk chunk = new ChatCompletionChunkParser().parse(bytes(
                "{\"choices\":[],\"usage\":{\"prompt_tokens\":6,\"completion_tokens\":1}}"));
        assertNull(chunk.usageCachedTokens());
    }

    @Test
    void anthropicCacheReadsCountInThePromptAndAsCached() throws Exception {
        ParsedChunk start = new AnthropicEventParser().parse("message_start", bytes("{\"type\":\"message_start\","
                + "\"message\":{\"id\":\"msg_1\",\"usage\":{\"input_tokens\":40,\"cache_read_input_tokens\":2048,"
                + "\"cache_creation_input_tokens\":0,\"output_tokens\":1}}}"));
        assertEquals(2088, start.usagePromptTokens());
        assertEquals(2048, start.usageCachedTokens());
    }
}

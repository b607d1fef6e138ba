package io.llmperf4j.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The exact bytes of the Anthropic Messages dialect and of the new OpenAI events. */
class AnthropicEncoderTest {

    @Test
    void streamEvents() {
        AnthropicEncoder encoder = new AnthropicEncoder("msg_3", "claude-sim");
        ResponseEncoder.Usage usage = new ResponseEncoder.Usage(12, 2, 0);
        assertEquals("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_3\","
                + "\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sim\",\"content\":[],"
                + "\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":12,\"output_tokens\":1}}}\n\n"
                + "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
                + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
                + "event: ping\ndata: {\"type\":\"ping\"}\n\n"
                + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
                + "\"delta\":{\"type\":\"text_delta\",\"text\":\"the of\"}}\n\n"
                + "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
                + "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\","
                + "\"stop_sequence\":null},\"usage\":{\"output_tokens\":2}}\n\n"
                + "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n", encode(g -> {
                    encoder.open(g, usage);
                    encoder.chunk(g, null, "the of");
                    encoder.close(g, true, usage, false, true);
                }));
        assertEquals("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\""
                + ResponseEncoder.ERROR_EVENT_MESSAGE + "\"}}\n\n", encode(encoder::errorEvent));
    }

    @Test
    void wholeMessage() {
        AnthropicEncoder encoder = new AnthropicEncoder("msg_1", "m");
        assertEquals("{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\","
                + "\"content\":[{\"type\":\"text\",\"text\":\"the of\"}],\"stop_reason\":\"max_tokens\","
                + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":2}}",
                encode(g -> encoder.fullResponse(g, null, "the of", false, new ResponseEncoder.Usage(3, 2, 0))));
    }

    @Test
    void openAiReasoningErrorAndMalformedEvents() {
        ChunkEncoder encoder = new ChunkEncoder(Endpoint.CHAT, "chatcmpl-9", 5L, "m");
        String header = "{\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\",\"created\":5,\"model\":\"m\",";
        assertEquals("data: " + header + "\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\" so\","
                + "\"content\":\"the\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n"
                + "data: " + header + "\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":null,"
                + "\"finish_reason\":\"stop\"}]}\n\n"
                + "data: " + header + "\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":3,"
                + "\"total_tokens\":7,\"completion_tokens_details\":{\"reasoning_tokens\":2}}}\n\n", encode(g -> {
                    encoder.chunk(g, " so", "the");
                    encoder.close(g, true, new ResponseEncoder.Usage(4, 3, 2), true, false);
                }));
        assertEquals("data: {\"error\":{\"message\":\"" + ResponseEncoder.ERROR_EVENT_MESSAGE
                + "\",\"type\":\"server_error\",\"code\":500}}\n\ndata: [DONE]\n\n", encode(encoder::errorEvent));
        assertEquals("data: {\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                + "\"delta\":{\"content\":\"\n\n", encode(encoder::malformedEvent));
        ChunkEncoder text = new ChunkEncoder(Endpoint.TEXT, "cmpl-2", 5L, "m");
        assertEquals("data: {\"id\":\"cmpl-2\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\"\n\n",
                encode(text::malformedEvent));
    }

    private static String encode(ChunkEncoder.JsonWriter writer) {
        ByteBuf buf = ChunkEncoder.encode(UnpooledByteBufAllocator.DEFAULT, 64, writer);
        try {
            return buf.toString(StandardCharsets.UTF_8);
        } finally {
            buf.release();
        }
    }
}

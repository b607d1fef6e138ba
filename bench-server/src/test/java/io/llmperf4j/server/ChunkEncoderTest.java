package io.llmperf4j.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The exact bytes on the wire, as vLLM writes them. */
class ChunkEncoderTest {

    private static final String CHAT_HEADER =
            "{\"id\":\"chatcmpl-7\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\\\"x\",";

    @Test
    void chatStreamEvents() {
        ChunkEncoder encoder = new ChunkEncoder(Endpoint.CHAT, "chatcmpl-7", 1_700_000_000L, "m\"x");
        String wire = encode(encoder);
        assertEquals("data: " + CHAT_HEADER
                + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,"
                + "\"finish_reason\":null}]}\n\n"
                + "data: " + CHAT_HEADER
                + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"the of\"},\"logprobs\":null,"
                + "\"finish_reason\":null}]}\n\n"
                + "data: " + CHAT_HEADER
                + "\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"length\"}]}\n\n"
                + "data: " + CHAT_HEADER
                + "\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,\"total_tokens\":7}}\n\n"
                + "data: [DONE]\n\n", wire);
    }

    @Test
    void textStreamEventsHaveNoRoleChunk() {
        ChunkEncoder encoder = new ChunkEncoder(Endpoint.TEXT, "cmpl-3", 5L, "m");
        String header = "{\"id\":\"cmpl-3\",\"object\":\"text_completion\",\"created\":5,\"model\":\"m\",";
        assertEquals("data: " + header
                + "\"choices\":[{\"index\":0,\"text\":\"the of\",\"logprobs\":null,\"finish_reason\":null}]}\n\n"
                + "data: " + header
                + "\"choices\":[{\"index\":0,\"text\":\"\",\"logprobs\":null,\"finish_reason\":\"length\"}]}\n\n"
                + "data: " + header
                + "\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,\"total_tokens\":7}}\n\n"
                + "data: [DONE]\n\n", encode(encoder));
    }

    @Test
    void fullChatResponse() {
        ChunkEncoder encoder = new ChunkEncoder(Endpoint.CHAT, "chatcmpl-1", 5L, "m");
        ByteBuf buf = ChunkEncoder.encode(UnpooledByteBufAllocator.DEFAULT, 64,
                g -> encoder.fullResponse(g, "the of", "length", 3, 2));
        assertEquals("{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":5,\"model\":\"m\","
                + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"the of\"},"
                + "\"logprobs\":null,\"finish_reason\":\"length\"}],"
                + "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,\"total_tokens\":5}}",
                buf.toString(StandardCharsets.UTF_8));
        buf.release();
    }

    private static String encode(ChunkEncoder encoder) {
        ByteBuf buf = ChunkEncoder.encode(UnpooledByteBufAllocator.DEFAULT, 64, g -> {
            encoder.role(g);
            encoder.content(g, "the of");
            encoder.finish(g, ChunkEncoder.FINISH_LENGTH);
            encoder.usage(g, 5, 2);
            ChunkEncoder.done(g);
        });
        try {
            return buf.toString(StandardCharsets.UTF_8);
        } finally {
            buf.release();
        }
    }
}

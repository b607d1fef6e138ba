package io.llmperf4j.engine.client;

import io.llmperf4j.model.ChatMessage;
import io.llmperf4j.model.ImageInput;
import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bodies of requests with a system prompt, earlier turns and images, per API. */
class RequestInputsBodyTest {
    private static final ImageInput IMAGE = new ImageInput() {
        public String mediaType() { return "image/png"; }
        public int width() { return 2; }
        public int height() { return 3; }
        public int byteLength() { return 4; }
        public String digest() { return "ab"; }
        public String url() { return "data:image/png;base64,AAAA"; }
        public String base64() { return "AAAA"; }
    };

    private static final RequestSpec TURN_TWO = new RequestSpec(1, "and then?", 10, 20, new RequestInputs("tools",
            List.of(ChatMessage.user("hello"), ChatMessage.assistant("hi there")), List.of(IMAGE), "s1", 1));

    @Test
    void textOnlyRequestsKeepLlmperfsBody() {
        RequestSpec spec = new RequestSpec(0, "p", 5, 7);
        assertArrayEquals(ChatRequestBody.encode("m", "p", 7, true, Map.of()),
                ChatRequestBody.toJson(ChatRequestBody.build("m", spec, true, true, Map.of())));
        assertEquals(AnthropicMessagesApi.build("m", "p", 7, true, Map.of()),
                AnthropicMessagesApi.build("m", spec, true, Map.of()));
    }

    @Test
    void chatSendsSystemHistoryThenTextAndImageParts() {
        String json = new String(ChatRequestBody.toJson(ChatRequestBody.build("m", TURN_TWO, true, false, Map.of())),
                StandardCharsets.UTF_8);
        assertEquals("{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"tools\"},"
                + "{\"role\":\"user\",\"content\":\"hello\"},{\"role\":\"assistant\",\"content\":\"hi there\"},"
                + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"and then?\"},"
                + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,AAAA\"}}]}],"
                + "\"stream\":true,\"max_tokens\":20}", json);
    }

    @Test
    void anthropicSendsTopLevelSystemAndImageBlocksFirst() {
        String json = new String(ChatRequestBody.toJson(AnthropicMessagesApi.build("m", TURN_TWO, true, Map.of())),
                StandardCharsets.UTF_8);
        assertTrue(json.startsWith("{\"model\":\"m\",\"max_tokens\":20,\"system\":\"tools\",\"messages\":["
                + "{\"role\":\"user\",\"content\":\"hello\"},{\"role\":\"assistant\",\"content\":\"hi there\"},"
                + "{\"role\":\"user\",\"content\":[{"), json);
        assertTrue(json.contains("\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"AAAA\"}"),
                json);
        assertTrue(json.indexOf("\"image\"") < json.indexOf("\"and then?\""), json);
    }

    @Test
    void completionsJoinTheTurnsAndRefuseImages() {
        RequestSpec noImages = new RequestSpec(1, "and then?", 10, 20, new RequestInputs("tools",
                List.of(ChatMessage.user("hello"), ChatMessage.assistant("hi there")), List.of(), "s1", 1));
        assertEquals("tools\n\nhello\n\nhi there\n\nand then?",
                ChatRequestBody.buildCompletion("m", noImages, true, false, Map.of()).get("prompt"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ChatRequestBody.buildCompletion("m", TURN_TWO, true, false, Map.of()));
        assertTrue(e.getMessage().contains("cannot send images"), e.getMessage());
    }
}

package io.llmperf4j.engine.client;

import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ChatRequestBodyTest {

    private static String json(boolean includeUsage, Map<String, ?> params) {
        return new String(ChatRequestBody.encode("m", "hi \"there\"", 150, includeUsage, params),
                StandardCharsets.UTF_8);
    }

    @Test
    void llmperfOrderWithUsageRequested() {
        assertEquals("{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"\"},"
                        + "{\"role\":\"user\",\"content\":\"hi \\\"there\\\"\"}],\"stream\":true,"
                        + "\"stream_options\":{\"include_usage\":true},\"max_tokens\":150}",
                json(true, Map.of()));
    }

    @Test
    void withoutUsageItIsExactlyLlmperfsBody() {
        assertEquals("{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"\"},"
                        + "{\"role\":\"user\",\"content\":\"hi \\\"there\\\"\"}],\"stream\":true,\"max_tokens\":150}",
                json(false, null));
    }

    @Test
    void noMaxTokensLeavesTheFieldOutLikeLlmperfsCorrectnessTest() {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("temperature", 0.0);
        assertEquals("{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"\"},"
                        + "{\"role\":\"user\",\"content\":\"p\"}],\"stream\":true,\"temperature\":0.0}",
                new String(ChatRequestBody.encode("m", "p", RequestSpec.NO_MAX_TOKENS, false, params),
                        StandardCharsets.UTF_8));
        params.put("max_tokens", 9); // the user can still ask for one
        assertEquals(List.of("model", "messages", "stream", "temperature", "max_tokens"),
                List.copyOf(ChatRequestBody.build("m", "p", RequestSpec.NO_MAX_TOKENS, false, params).keySet()));
    }

    @Test
    void additionalParamsFollowDictUpdate() {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("temperature", 0.5);
        params.put("max_tokens", 7);          // existing key: keeps its place, new value
        params.put("top_p", 1);
        params.put("model", "other");         // can override even the model
        params.put("stop", null);
        params.put("logit_bias", Map.of("50256", -100));
        params.put("seq", List.of(1, "a"));
        assertEquals("{\"model\":\"other\",\"messages\":[{\"role\":\"system\",\"content\":\"\"},"
                        + "{\"role\":\"user\",\"content\":\"hi \\\"there\\\"\"}],\"stream\":true,"
                        + "\"stream_options\":{\"include_usage\":true},\"max_tokens\":7,\"temperature\":0.5,"
                        + "\"top_p\":1,\"stop\":null,\"logit_bias\":{\"50256\":-100},\"seq\":[1,\"a\"]}",
                json(true, params));
    }

    @Test
    void paramsCanTurnOffStreamingAndUsage() {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("stream_options", Map.of("include_usage", false));
        params.put("stream", false);
        assertEquals(List.of("model", "messages", "stream", "stream_options", "max_tokens"),
                List.copyOf(ChatRequestBody.build("m", "p", 1, true, params).keySet()));
        assertEquals(false, ChatRequestBody.build("m", "p", 1, true, params).get("stream"));
    }
}

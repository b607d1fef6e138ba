package io.llmperf4j.server;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;

import static io.llmperf4j.server.TestClient.chatBody;
import static io.llmperf4j.server.TestClient.completionBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NonStreamingTest {

    private static final Duration TTFT = Duration.ofMillis(20);
    private static final Duration ITL = Duration.ofMillis(3);

    private static SimulatedServer server;
    private static TestClient client;

    @BeforeAll
    static void start() {
        server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(TTFT).interTokenDelay(ITL)
                .promptTokenCounter(text -> 1000 + text.length()) // distinguishable from the heuristic
                .build());
        client = new TestClient(server);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void chatResponseHasMessageAndUsageAfterTheWholeGeneration() throws Exception {
        long sentNanos = System.nanoTime();
        HttpResponse<String> http = client.post("/chat/completions", chatBody("abc", false, 9, ""));
        long elapsedNanos = System.nanoTime() - sentNanos;

        assertEquals(200, http.statusCode());
        assertTrue(http.headers().firstValue("content-type").orElse("").startsWith("application/json"));
        JsonNode response = TestClient.JSON.readTree(http.body());
        assertTrue(response.get("id").asText().startsWith("chatcmpl-"));
        assertEquals("chat.completion", response.get("object").asText());
        assertEquals("test-model", response.get("model").asText());
        JsonNode choice = response.get("choices").get(0);
        assertEquals(0, choice.get("index").asInt());
        assertEquals("assistant", choice.get("message").get("role").asText());
        String content = choice.get("message").get("content").asText();
        assertEquals(9, content.split(" ").length);
        assertFalse(content.startsWith(" "));
        assertEquals("length", choice.get("finish_reason").asText());
        JsonNode usage = response.get("usage");
        assertEquals(1000 + "\nabc".length(), usage.get("prompt_tokens").asInt(), "the configured counter");
        assertEquals(9, usage.get("completion_tokens").asInt());
        assertEquals(1004 + 9, usage.get("total_tokens").asInt());
        long generationNanos = TTFT.toNanos() + 8 * ITL.toNanos();
        assertTrue(elapsedNanos >= generationNanos, elapsedNanos + " ns < " + generationNanos);
    }

    @Test
    void completionResponseHasText() throws Exception {
        JsonNode response = client.postJson("/completions", completionBody("xyz", false, 4, ""));
        assertTrue(response.get("id").asText().startsWith("cmpl-"));
        assertEquals("text_completion", response.get("object").asText());
        JsonNode choice = response.get("choices").get(0);
        assertEquals(4, choice.get("text").asText().split(" ").length);
        assertEquals("length", choice.get("finish_reason").asText());
        assertEquals(1003, response.get("usage").get("prompt_tokens").asInt());
        assertEquals(4, response.get("usage").get("completion_tokens").asInt());
    }

    @Test
    void tokenIdPromptsCountTheirIds() throws Exception {
        JsonNode response = client.postJson("/completions",
                "{\"prompt\":[1,15043,3186],\"max_tokens\":2,\"stream\":false}");
        assertEquals(3, response.get("usage").get("prompt_tokens").asInt());
        JsonNode nested = client.postJson("/completions", "{\"prompt\":[[1,2,3,4]],\"max_tokens\":2}");
        assertEquals(4, nested.get("usage").get("prompt_tokens").asInt());
    }

    @Test
    void modelsAndHealth() throws Exception {
        HttpResponse<String> http = client.get("/models");
        assertEquals(200, http.statusCode());
        JsonNode models = TestClient.JSON.readTree(http.body());
        assertEquals("list", models.get("object").asText());
        assertEquals(1, models.get("data").size());
        JsonNode model = models.get("data").get(0);
        assertEquals(SimulatorConfig.DEFAULT_MODEL_ID, model.get("id").asText());
        assertEquals("model", model.get("object").asText());
        assertTrue(model.get("created").asLong() > 1_600_000_000L);
        assertEquals("llmperf4j", model.get("owned_by").asText());

        HttpResponse<String> health = new TestClient(server.baseUrl().replace("/v1", ""), null).get("/health");
        assertEquals(200, health.statusCode());
    }
}

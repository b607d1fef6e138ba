package io.llmperf4j.server;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import static io.llmperf4j.server.TestClient.chatBody;
import static io.llmperf4j.server.TestClient.completionBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReasoningTest {

    private static final Duration TTFT = Duration.ofMillis(10);
    private static final Duration ITL = Duration.ofMillis(2);
    private static final Set<String> WORDS = Set.of(TokenText.words());
    private static final String USAGE = "\"stream_options\":{\"include_usage\":true}";

    private static SimulatedServer server;
    private static SimulatedServer plain;

    @BeforeAll
    static void start() {
        SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(TTFT).interTokenDelay(ITL)
                .reasoningTokens(3).build();
        server = SimulatedServer.start(config);
        plain = SimulatedServer.start(config.toBuilder().reasoningTokens(0).build());
    }

    @AfterAll
    static void stop() {
        server.close();
        plain.close();
    }

    @Test
    void reasoningStreamsFirstThenContent() throws Exception {
        TestClient.Streamed response = new TestClient(server).stream("/chat/completions",
                chatBody("think", true, 8, USAGE));
        List<JsonNode> chunks = response.jsonEvents();
        assertEquals(1 + 8 + 1 + 1, chunks.size(), "role, 3 reasoning, 5 content, finish, usage");
        assertEquals("{\"role\":\"assistant\",\"content\":\"\"}",
                chunks.get(0).get("choices").get(0).get("delta").toString());
        StringBuilder reasoning = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            JsonNode delta = chunks.get(1 + i).get("choices").get(0).get("delta");
            assertFalse(delta.has("content"), delta.toString());
            String token = delta.get("reasoning_content").asText();
            assertEquals(i > 0, token.startsWith(" "), token);
            assertTrue(WORDS.contains(token.trim()));
            reasoning.append(token);
        }
        StringBuilder content = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            JsonNode delta = chunks.get(4 + i).get("choices").get(0).get("delta");
            assertFalse(delta.has("reasoning_content"));
            String token = delta.get("content").asText();
            assertEquals(i > 0, token.startsWith(" "), "content restarts the text contract: '" + token + "'");
            content.append(token);
        }
        JsonNode usage = chunks.get(10).get("usage");
        assertEquals(8, usage.get("completion_tokens").asInt());
        assertEquals(3, usage.get("completion_tokens_details").get("reasoning_tokens").asInt());
        assertEquals("length", chunks.get(9).get("choices").get(0).get("finish_reason").asText());

        // content chunk k is still token k of the response: the first content token after 3 reasoning tokens
        long firstContent = response.events().get(4).arrivalNanos() - response.sentNanos();
        assertTrue(firstContent >= TTFT.toNanos() + 3 * ITL.toNanos(), firstContent + " ns");

        JsonNode whole = new TestClient(server).postJson("/chat/completions", chatBody("think", false, 8, ""));
        JsonNode message = whole.get("choices").get(0).get("message");
        assertEquals(reasoning.toString(), message.get("reasoning_content").asText());
        assertEquals(content.toString(), message.get("content").asText());
        assertEquals(content.toString(), new TestClient(plain).postJson("/chat/completions",
                chatBody("think", false, 5, "")).get("choices").get(0).get("message").get("content").asText(),
                "the content is the reasoning-free text of the same prompt");
    }

    @Test
    void aChunkAcrossTheBoundaryCarriesBothFields() throws Exception {
        try (SimulatedServer grouped = SimulatedServer.start(server.config().toBuilder().tokensPerChunk(2).build())) {
            List<JsonNode> chunks = new TestClient(grouped).stream("/chat/completions",
                    chatBody("think", true, 6, "")).jsonEvents();
            assertEquals(1 + 3 + 1, chunks.size());
            JsonNode straddling = chunks.get(2).get("choices").get(0).get("delta");
            assertEquals(1, straddling.get("reasoning_content").asText().trim().split(" ").length);
            assertEquals(1, straddling.get("content").asText().split(" ").length);
            assertFalse(straddling.get("content").asText().startsWith(" "));
        }
    }

    @Test
    void textCompletionsAndAnthropicHaveNoReasoning() throws Exception {
        JsonNode text = new TestClient(server).postJson("/completions", completionBody("think", false, 4, ""));
        assertEquals(4, text.get("choices").get(0).get("text").asText().split(" ").length);
        assertFalse(text.get("usage").has("completion_tokens_details"));
        JsonNode message = new TestClient(server).postJson("/messages",
                AnthropicMessagesTest.messagesBody("think", false, 4));
        assertEquals(4, message.get("content").get(0).get("text").asText().split(" ").length);
    }
}

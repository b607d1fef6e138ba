package io.llmperf4j.server;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import static io.llmperf4j.server.TestClient.chatBody;
import static io.llmperf4j.server.TestClient.completionBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EarlyStopTest {

    private static SimulatorConfig.Builder fast() {
        return SimulatorConfig.builder().timeToFirstToken(Duration.ZERO).interTokenDelay(Duration.ZERO);
    }

    @Test
    void aNaturalLengthEndsWithStopBeforeMaxTokens() throws Exception {
        try (SimulatedServer server = SimulatedServer.start(fast().earlyStop(EarlyStop.naturalLength(5)).build())) {
            TestClient client = new TestClient(server);
            TestClient.Streamed stopped = client.stream("/chat/completions",
                    chatBody("natural", true, 20, "\"stream_options\":{\"include_usage\":true}"));
            List<JsonNode> chunks = stopped.jsonEvents();
            assertEquals(1 + 5 + 1 + 1, chunks.size(), "role, 5 tokens, finish, usage");
            assertEquals("stop", chunks.get(6).get("choices").get(0).get("finish_reason").asText());
            assertEquals(5, chunks.get(7).get("usage").get("completion_tokens").asInt());
            assertTrue(stopped.events().get(stopped.events().size() - 1).isDone());

            JsonNode limited = client.postJson("/completions", completionBody("natural", false, 4, ""));
            assertEquals("length", limited.get("choices").get(0).get("finish_reason").asText(),
                    "max_tokens below the natural length");
            JsonNode whole = client.postJson("/completions", completionBody("natural", false, 9, ""));
            assertEquals("stop", whole.get("choices").get(0).get("finish_reason").asText());
            assertEquals(5, whole.get("usage").get("completion_tokens").asInt());
            assertEquals(limited.get("choices").get(0).get("text").asText(),
                    whole.get("choices").get(0).get("text").asText().substring(0,
                            limited.get("choices").get(0).get("text").asText().length()), "a prefix of the same text");
        }
    }

    @Test
    void ignoreEosAndMinTokensAreHonoured() throws Exception {
        try (SimulatedServer server = SimulatedServer.start(fast().earlyStop(EarlyStop.naturalLength(5)).build())) {
            TestClient client = new TestClient(server);
            JsonNode ignored = client.postJson("/chat/completions", chatBody("eos", false, 20, "\"ignore_eos\":true"));
            assertEquals("length", ignored.get("choices").get(0).get("finish_reason").asText());
            assertEquals(20, ignored.get("usage").get("completion_tokens").asInt());

            JsonNode atLeast = client.postJson("/chat/completions", chatBody("eos", false, 20, "\"min_tokens\":8"));
            assertEquals("stop", atLeast.get("choices").get(0).get("finish_reason").asText());
            assertEquals(8, atLeast.get("usage").get("completion_tokens").asInt());

            JsonNode minIsMax = client.postJson("/chat/completions", chatBody("eos", false, 7, "\"min_tokens\":7"));
            assertEquals("length", minIsMax.get("choices").get(0).get("finish_reason").asText());

            HttpResponse<String> tooMany = client.post("/chat/completions", chatBody("eos", false, 3,
                    "\"min_tokens\":4"));
            assertEquals(400, tooMany.statusCode());
            assertEquals("min_tokens (4) must be <= max_tokens (3).",
                    TestClient.JSON.readTree(tooMany.body()).get("error").get("message").asText());
            assertEquals(400, client.post("/completions", completionBody("x", false, 3, "\"ignore_eos\":1"))
                    .statusCode());

            JsonNode anthropic = client.postJson("/messages", AnthropicMessagesTest.messagesBody("eos", false, 20));
            assertEquals("end_turn", anthropic.get("stop_reason").asText());
            assertEquals(5, anthropic.get("usage").get("output_tokens").asInt());
        }
    }

    @Test
    void aStopProbabilityStopsSomeRequestsDeterministically() throws Exception {
        try (SimulatedServer server = SimulatedServer.start(fast().earlyStop(EarlyStop.probability(0.5, 11)).build())) {
            TestClient client = new TestClient(server);
            int stopped = 0;
            for (int i = 0; i < 30; i++) {
                String body = completionBody("prompt " + i, false, 50, "");
                JsonNode first = client.postJson("/completions", body);
                JsonNode again = client.postJson("/completions", body);
                assertEquals(first.get("choices").get(0).get("text"), again.get("choices").get(0).get("text"),
                        "the same prompt stops at the same place");
                int tokens = first.get("usage").get("completion_tokens").asInt();
                String finish = first.get("choices").get(0).get("finish_reason").asText();
                if (finish.equals("stop")) {
                    stopped++;
                    assertTrue(tokens >= 1 && tokens < 50, tokens + " tokens");
                } else {
                    assertEquals(50, tokens);
                }
                assertEquals(tokens, first.get("choices").get(0).get("text").asText().split(" ").length);
            }
            assertTrue(stopped > 5 && stopped < 25, stopped + " of 30 stopped");
        }
    }

    @Test
    void thePureFunctionAndItsValidation() {
        EarlyStop always = EarlyStop.probability(1, 3);
        for (int max = 2; max < 40; max++) {
            int n = always.generatedTokens(TokenText.seedOf("p" + max), max, 1, false);
            assertTrue(n >= 1 && n < max, n + " of " + max);
            assertEquals(max, always.generatedTokens(TokenText.seedOf("p" + max), max, 1, true), "ignore_eos");
            assertEquals(max, always.generatedTokens(TokenText.seedOf("p"), max, max, false), "min_tokens = max");
        }
        assertEquals(1, always.generatedTokens(1, 1, 1, false));
        assertEquals(7, EarlyStop.none().generatedTokens(1, 7, 1, false));
        assertEquals("stopProbability (1.5) must be within [0, 1]",
                assertThrows(IllegalArgumentException.class, () -> EarlyStop.probability(1.5, 0)).getMessage());
        assertEquals("naturalLength (-1) must be >= 0",
                assertThrows(IllegalArgumentException.class, () -> new EarlyStop(0.5, -1, 0)).getMessage());
        assertEquals("naturalLength (0) must be >= 1",
                assertThrows(IllegalArgumentException.class, () -> EarlyStop.naturalLength(0)).getMessage());
    }
}

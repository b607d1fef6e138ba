package io.llmperf4j.server;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AnthropicMessagesTest {

    private static final String KEY = "sk-ant-test";
    private static final Duration TTFT = Duration.ofMillis(20);
    private static final Duration ITL = Duration.ofMillis(3);
    private static final Set<String> WORDS = Set.of(TokenText.words());

    private static SimulatedServer server;
    private static TestClient client;

    @BeforeAll
    static void start() {
        server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(TTFT).interTokenDelay(ITL).apiKey(KEY).build());
        client = new TestClient(server.baseUrl(), null);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static String messagesBody(String prompt, boolean stream, int maxTokens) {
        return "{\"model\":\"claude-sim\",\"max_tokens\":" + maxTokens + ",\"stream\":" + stream
                + ",\"messages\":[{\"role\":\"user\",\"content\":" + TestClient.quote(prompt) + "}]}";
    }

    /** The "event:" names of a stream, in order; asserts each is followed by its data line and a blank line. */
    static List<String> eventNames(TestClient.Lines response) throws Exception {
        List<String> lines = response.texts();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < lines.size(); i += 3) {
            assertTrue(lines.get(i).startsWith("event: "), lines.get(i));
            String name = lines.get(i).substring("event: ".length());
            assertTrue(lines.get(i + 1).startsWith("data: "), lines.get(i + 1));
            assertEquals("", lines.get(i + 2));
            String data = lines.get(i + 1).substring("data: ".length());
            if (FaultInjectionTest.parses(data)) assertEquals(name, TestClient.JSON.readTree(data).get("type").asText());
            names.add(name);
        }
        return names;
    }

    private static String[] auth() {
        return new String[] {"x-api-key", KEY, "anthropic-version", "2023-06-01"};
    }

    @Test
    void streamHasTheAnthropicEventOrderAndUsage() throws Exception {
        int maxTokens = 6;
        TestClient.Lines response = client.lines("/messages", messagesBody("Hello, Claude", true, maxTokens), auth());
        assertEquals(200, response.status());
        assertTrue(response.headers().firstValue("content-type").orElse("").startsWith("text/event-stream"));
        List<String> names = eventNames(response);
        List<String> expected = new ArrayList<>(List.of("message_start", "content_block_start", "ping"));
        for (int i = 0; i < maxTokens; i++) expected.add("content_block_delta");
        expected.addAll(List.of("content_block_stop", "message_delta", "message_stop"));
        assertEquals(expected, names);

        List<JsonNode> data = new ArrayList<>();
        for (String line : response.texts()) {
            if (line.startsWith("data: ")) data.add(TestClient.JSON.readTree(line.substring(6)));
        }
        JsonNode message = data.get(0).get("message");
        assertTrue(message.get("id").asText().startsWith("msg_"));
        assertEquals("message", message.get("type").asText());
        assertEquals("assistant", message.get("role").asText());
        assertEquals("claude-sim", message.get("model").asText());
        assertEquals(0, message.get("content").size());
        assertTrue(message.get("stop_reason").isNull());
        assertEquals(PromptTokens.estimate("Hello, Claude"), message.get("usage").get("input_tokens").asInt());
        assertEquals("{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
                data.get(1).toString());
        assertEquals("{\"type\":\"ping\"}", data.get(2).toString());
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < maxTokens; i++) {
            JsonNode delta = data.get(3 + i);
            assertEquals(0, delta.get("index").asInt());
            assertEquals("text_delta", delta.get("delta").get("type").asText());
            String token = delta.get("delta").get("text").asText();
            assertEquals(i > 0, token.startsWith(" "), "token " + i + " '" + token + "'");
            assertTrue(WORDS.contains(token.trim()), token);
            text.append(token);
        }
        assertEquals("{\"type\":\"content_block_stop\",\"index\":0}", data.get(3 + maxTokens).toString());
        JsonNode messageDelta = data.get(4 + maxTokens);
        assertEquals("max_tokens", messageDelta.get("delta").get("stop_reason").asText());
        assertTrue(messageDelta.get("delta").get("stop_sequence").isNull());
        assertEquals(maxTokens, messageDelta.get("usage").get("output_tokens").asInt());
        assertEquals("{\"type\":\"message_stop\"}", data.get(5 + maxTokens).toString());

        // the same conversation as chat completions generates the same text
        TestClient openAi = new TestClient(server.baseUrl(), KEY);
        JsonNode chat = openAi.postJson("/chat/completions", "{\"max_tokens\":6,\"messages\":[{\"role\":\"user\","
                + "\"content\":\"Hello, Claude\"}]}");
        assertEquals(chat.get("choices").get(0).get("message").get("content").asText(), text.toString());
    }

    @Test
    void streamFollowsTheTimingContract() throws Exception {
        TestClient.Lines response = client.lines("/messages", messagesBody("timed", true, 8), auth());
        List<TestClient.Line> deltas = response.lines().stream()
                .filter(l -> l.text().startsWith("data: {\"type\":\"content_block_delta\"")).toList();
        assertEquals(8, deltas.size());
        assertTrue(response.lines().get(0).arrivalNanos() - response.sentNanos() >= TTFT.toNanos(),
                "message_start goes out with the first token");
        for (int k = 0; k < 8; k++) {
            long elapsed = deltas.get(k).arrivalNanos() - response.sentNanos();
            assertTrue(elapsed >= TTFT.toNanos() + k * ITL.toNanos(), "token " + k + " after " + elapsed + " ns");
        }
    }

    @Test
    void nonStreamingIsOneMessage() throws Exception {
        HttpResponse<String> http = client.post("/messages", "{\"max_tokens\":5,\"system\":\"Be brief.\","
                + "\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Hi\"}]}]}", auth());
        assertEquals(200, http.statusCode());
        JsonNode message = TestClient.JSON.readTree(http.body());
        assertTrue(message.get("id").asText().startsWith("msg_"));
        assertEquals("message", message.get("type").asText());
        assertEquals("assistant", message.get("role").asText());
        assertEquals(SimulatorConfig.DEFAULT_MODEL_ID, message.get("model").asText(), "no model: the first served");
        assertEquals(1, message.get("content").size());
        assertEquals("text", message.get("content").get(0).get("type").asText());
        assertEquals(5, message.get("content").get(0).get("text").asText().split(" ").length);
        assertEquals("max_tokens", message.get("stop_reason").asText());
        assertTrue(message.get("stop_sequence").isNull());
        assertEquals(PromptTokens.estimate("Be brief.\nHi"), message.get("usage").get("input_tokens").asInt());
        assertEquals(5, message.get("usage").get("output_tokens").asInt());
    }

    @Test
    void authenticationUsesTheApiKeyHeader() throws Exception {
        String body = messagesBody("x", false, 2);
        HttpResponse<String> missing = client.post("/messages", body);
        assertAnthropicError(missing, 401, "authentication_error");
        assertEquals("x-api-key header is required",
                TestClient.JSON.readTree(missing.body()).get("error").get("message").asText());
        HttpResponse<String> wrong = client.post("/messages", body, "x-api-key", "sk-wrong");
        assertAnthropicError(wrong, 401, "authentication_error");
        assertFalse(wrong.body().contains("sk-wrong"));
        assertEquals(200, client.post("/messages", body, auth()).statusCode());
        assertEquals(200, client.post("/messages", body, "Authorization", "Bearer " + KEY).statusCode(),
                "a bearer token, as gateways send it, works too");
        assertEquals(401, client.post("/chat/completions", TestClient.chatBody("x", false, 2, ""), "x-api-key", KEY)
                .statusCode(), "OpenAI paths keep bearer authentication");
        assertEquals(200, client.get("/models", auth()).statusCode(), "the model list answers x-api-key, as Anthropic's");
        assertEquals(401, client.get("/models", "x-api-key", "sk-wrong").statusCode());
    }

    @Test
    void badRequestsAreAnthropicErrors() throws Exception {
        HttpResponse<String> noMax = client.post("/messages",
                "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}", auth());
        JsonNode error = assertAnthropicError(noMax, 400, "invalid_request_error");
        assertEquals("max_tokens: Field required", error.get("message").asText());
        assertAnthropicError(client.post("/messages", "{\"max_tokens\":0,\"messages\":[{\"content\":\"x\"}]}", auth()),
                400, "invalid_request_error");
        assertAnthropicError(client.post("/messages", "{\"max_tokens\":3}", auth()), 400, "invalid_request_error");
        assertAnthropicError(client.post("/messages", "{not json", auth()), 400, "invalid_request_error");
        assertAnthropicError(client.post("/messages", "{\"max_tokens\":3,\"messages\":[{\"content\":5}]}", auth()),
                400, "invalid_request_error");
    }

    private static JsonNode assertAnthropicError(HttpResponse<String> response, int status, String type)
            throws Exception {
        assertEquals(status, response.statusCode(), response.body());
        JsonNode body = TestClient.JSON.readTree(response.body());
        assertEquals("error", body.get("type").asText());
        assertEquals(type, body.get("error").get("type").asText());
        assertFalse(body.get("error").get("message").asText().isEmpty());
        return body.get("error");
    }
}

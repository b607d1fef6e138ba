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

class ErrorResponsesTest {

    private static final String KEY = "sk-test-123";

    private static SimulatedServer server;
    private static TestClient authorized;

    @BeforeAll
    static void start() {
        server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ZERO).interTokenDelay(Duration.ZERO)
                .modelIds("served-a", "served-b").acceptAnyModel(false).apiKey(KEY)
                .build());
        authorized = new TestClient(server.baseUrl(), KEY);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void missingOrWrongKeyIs401() throws Exception {
        String body = chatBody("hi", false, 2, "").replace("test-model", "served-a");
        HttpResponse<String> missing = new TestClient(server.baseUrl(), null).post("/chat/completions", body);
        assertError(missing, 401, "authentication_error");
        HttpResponse<String> wrong = new TestClient(server.baseUrl(), "sk-wrong").post("/chat/completions", body);
        assertError(wrong, 401, "authentication_error");
        assertFalse(wrong.body().contains("sk-wrong"), "never echo a key");
        assertEquals(401, new TestClient(server.baseUrl(), null).get("/models").statusCode());

        assertEquals(200, authorized.post("/chat/completions", body).statusCode());
        assertEquals(200, authorized.get("/models").statusCode());
    }

    @Test
    void unknownModelIs404WhenOnlyServedModelsAreAccepted() throws Exception {
        HttpResponse<String> response = authorized.post("/chat/completions", chatBody("hi", true, 2, ""));
        JsonNode error = assertError(response, 404, "invalid_request_error");
        assertEquals("The model `test-model` does not exist.", error.get("message").asText());
        assertEquals("model", error.get("param").asText());

        String served = completionBody("hi", false, 2, "").replace("test-model", "served-b");
        assertEquals("served-b", TestClient.JSON.readTree(authorized.post("/completions", served).body())
                .get("model").asText());
        JsonNode models = TestClient.JSON.readTree(authorized.get("/models").body());
        assertEquals(2, models.get("data").size());
    }

    @Test
    void badBodiesAre400() throws Exception {
        assertError(authorized.post("/chat/completions", "{not json"), 400, "invalid_request_error");
        assertError(authorized.post("/chat/completions", "[1,2]"), 400, "invalid_request_error");
        assertError(authorized.post("/chat/completions", ""), 400, "invalid_request_error");
        JsonNode noMessages = assertError(authorized.post("/chat/completions", "{\"model\":\"served-a\"}"), 400,
                "invalid_request_error");
        assertEquals("messages", noMessages.get("param").asText());
        assertError(authorized.post("/chat/completions", "{\"model\":\"served-a\",\"messages\":[]}"), 400,
                "invalid_request_error");
        JsonNode noPrompt = assertError(authorized.post("/completions", "{\"model\":\"served-a\"}"), 400,
                "invalid_request_error");
        assertEquals("prompt", noPrompt.get("param").asText());
        assertError(authorized.post("/completions", "{\"prompt\":[\"a\",\"b\"]}"), 400, "invalid_request_error");
        JsonNode zero = assertError(authorized.post("/completions", "{\"prompt\":\"a\",\"max_tokens\":0}"), 400,
                "invalid_request_error");
        assertEquals("max_tokens (0) must be >= 1.", zero.get("message").asText());
        assertError(authorized.post("/completions", "{\"prompt\":\"a\",\"n\":2}"), 400, "invalid_request_error");
        JsonNode tooLong = assertError(authorized.post("/completions",
                "{\"prompt\":\"a\",\"max_completion_tokens\":1000001}"), 400, "invalid_request_error");
        assertEquals("max_completion_tokens", tooLong.get("param").asText());
        assertError(authorized.post("/completions", "{\"prompt\":\"a\",\"stream\":\"yes\"}"), 400,
                "invalid_request_error");
    }

    @Test
    void unknownPathsAndMethodsAre404() throws Exception {
        JsonNode error = assertError(authorized.post("/audio/speech", "{}"), 404, "invalid_request_error");
        assertEquals("Invalid URL (POST /v1/audio/speech).", error.get("message").asText());
        assertError(authorized.get("/chat/completions"), 404, "invalid_request_error");
        assertError(new TestClient(server.baseUrl().replace("/v1", ""), null).get("/nothing"), 404,
                "invalid_request_error");
    }

    /** Asserts an OpenAI-style error body and returns its "error" object. */
    private static JsonNode assertError(HttpResponse<String> response, int status, String type) throws Exception {
        assertEquals(status, response.statusCode(), response.body());
        assertTrue(response.headers().firstValue("content-type").orElse("").startsWith("application/json"));
        JsonNode error = TestClient.JSON.readTree(response.body()).get("error");
        assertEquals(type, error.get("type").asText());
        assertEquals(status, error.get("code").asInt());
        assertFalse(error.get("message").asText().isEmpty());
        return error;
    }
}

package io.llmperf4j.server;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EmbeddingsTest {

    private static final Duration BASE = Duration.ofMillis(20);
    private static final Duration PER_TOKEN = Duration.ofMillis(1);

    private static SimulatedServer server;
    private static TestClient client;

    @BeforeAll
    static void start() {
        server = SimulatedServer.start(SimulatorConfig.builder()
                .embeddings(EmbeddingsConfig.defaults().withLatency(BASE, PER_TOKEN).withMaxBatchSize(4)).build());
        client = new TestClient(server);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void oneStringGivesOneNormalizedVectorOfTheDefaultDimension() throws Exception {
        JsonNode response = client.postJson("/embeddings", "{\"model\":\"embed-sim\",\"input\":\"hello world\"}");
        assertEquals("list", response.get("object").asText());
        assertEquals("embed-sim", response.get("model").asText());
        assertEquals(1, response.get("data").size());
        JsonNode item = response.get("data").get(0);
        assertEquals("embedding", item.get("object").asText());
        assertEquals(0, item.get("index").asInt());
        assertEquals(384, item.get("embedding").size());
        assertEquals(1.0, norm(item.get("embedding")), 1e-5);
        int tokens = PromptTokens.estimate("hello world");
        assertEquals(tokens, response.get("usage").get("prompt_tokens").asInt());
        assertEquals(tokens, response.get("usage").get("total_tokens").asInt());
        assertEquals(2, response.get("usage").size());

        JsonNode again = client.postJson("/embeddings", "{\"input\":\"hello world\"}");
        assertEquals(item.get("embedding"), again.get("data").get(0).get("embedding"), "deterministic per input");
        assertEquals(SimulatorConfig.DEFAULT_MODEL_ID, again.get("model").asText());
    }

    @Test
    void batchesOfStringsAndTokenIdsKeepTheirOrderAndCountTokens() throws Exception {
        JsonNode strings = client.postJson("/embeddings", "{\"input\":[\"a\",\"bbbbbbbbb\",\"hello world\"]}");
        assertEquals(3, strings.get("data").size());
        for (int i = 0; i < 3; i++) assertEquals(i, strings.get("data").get(i).get("index").asInt());
        assertEquals(PromptTokens.estimate("a") + PromptTokens.estimate("bbbbbbbbb")
                + PromptTokens.estimate("hello world"), strings.get("usage").get("prompt_tokens").asInt());
        JsonNode single = client.postJson("/embeddings", "{\"input\":\"hello world\"}");
        assertEquals(single.get("data").get(0).get("embedding"), strings.get("data").get(2).get("embedding"));
        assertNotEquals(strings.get("data").get(0).get("embedding"), strings.get("data").get(1).get("embedding"));

        JsonNode ids = client.postJson("/embeddings", "{\"input\":[1,15043,3186]}");
        assertEquals(1, ids.get("data").size());
        assertEquals(3, ids.get("usage").get("prompt_tokens").asInt());
        JsonNode idLists = client.postJson("/embeddings", "{\"input\":[[1,2],[3,4,5,6]]}");
        assertEquals(2, idLists.get("data").size());
        assertEquals(6, idLists.get("usage").get("total_tokens").asInt());
        assertEquals(1.0, norm(idLists.get("data").get(1).get("embedding")), 1e-5);
    }

    @Test
    void dimensionsAndBase64() throws Exception {
        JsonNode full = client.postJson("/embeddings", "{\"input\":\"shorter\"}");
        JsonNode shorter = client.postJson("/embeddings", "{\"input\":\"shorter\",\"dimensions\":64}");
        JsonNode vector = shorter.get("data").get(0).get("embedding");
        assertEquals(64, vector.size());
        assertEquals(1.0, norm(vector), 1e-5);
        // truncated and renormalized, as OpenAI's dimensions parameter
        double ratio = full.get("data").get(0).get("embedding").get(0).asDouble() / vector.get(0).asDouble();
        assertEquals(ratio, full.get("data").get(0).get("embedding").get(10).asDouble() / vector.get(10).asDouble(),
                1e-4);

        JsonNode encoded = client.postJson("/embeddings", "{\"input\":\"shorter\",\"encoding_format\":\"base64\"}");
        byte[] bytes = Base64.getDecoder().decode(encoded.get("data").get(0).get("embedding").asText());
        assertEquals(384 * 4, bytes.length);
        ByteBuffer floats = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 384; i++) {
            assertEquals((float) full.get("data").get(0).get("embedding").get(i).asDouble(), floats.getFloat(), 0f);
        }

        try (SimulatedServer small = SimulatedServer.start(SimulatorConfig.builder()
                .embeddings(EmbeddingsConfig.defaults().withDimensions(8)).build())) {
            JsonNode eight = new TestClient(small).postJson("/embeddings", "{\"input\":\"x\"}");
            assertEquals(8, eight.get("data").get(0).get("embedding").size());
        }
    }

    @Test
    void latencyIsBasePlusPerTokenCost() throws Exception {
        String input = "x".repeat(40); // 1 + 10 tokens by the heuristic
        long sent = System.nanoTime();
        JsonNode response = client.postJson("/embeddings", "{\"input\":\"" + input + "\"}");
        long elapsed = System.nanoTime() - sent;
        assertEquals(11, response.get("usage").get("prompt_tokens").asInt());
        assertTrue(elapsed >= BASE.toNanos() + 11 * PER_TOKEN.toNanos(), elapsed + " ns");
    }

    @Test
    void theFaultPlanPicksEmbeddingsFaultsAmongTheKindsThatChangeTheirResponse() throws Exception {
        FaultPlan plan = FaultPlan.sequence(FaultKind.HTTP_500, FaultKind.OVERSIZED_EVENT, FaultKind.MISSING_DONE,
                FaultKind.ERROR_EVENT);
        try (SimulatedServer faulty = SimulatedServer.start(SimulatorConfig.builder().faultPlan(plan).build())) {
            TestClient c = new TestClient(faulty);
            List<Integer> statuses = new ArrayList<>();
            List<Boolean> hasData = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                HttpResponse<String> r = c.post("/embeddings", "{\"input\":\"x\"}");
                statuses.add(r.statusCode());
                hasData.add(r.body().contains("\"embedding\""));
            }
            assertEquals(List.of(500, 200, 200, 200), statuses);
            assertEquals(List.of(false, true, true, false), hasData, "the 4th is an error object");
            FaultCounts counts = faulty.faultCounts();
            assertEquals(4, counts.total());
            assertEquals(2, counts.count(FaultKind.NONE), "oversized_event and missing_done change nothing here");
            assertEquals(1, counts.count(FaultKind.HTTP_500));
            assertEquals(1, counts.count(FaultKind.ERROR_EVENT));
        }
    }

    @Test
    void invalidRequestsAre400() throws Exception {
        assertBadInput("{\"input\":[\"a\",\"b\",\"c\",\"d\",\"e\"]}",
                "input holds 5 items, more than the maximum batch size (4).");
        assertBadInput("{\"input\":[]}", null);
        assertBadInput("{\"input\":\"\"}", "input must not contain empty strings.");
        assertBadInput("{\"input\":[[]]}", "input must not contain empty token id lists.");
        assertBadInput("{\"input\":[\"a\",1]}", null);
        assertBadInput("{\"model\":\"m\"}", "input is required.");
        HttpResponse<String> format = client.post("/embeddings", "{\"input\":\"a\",\"encoding_format\":\"int8\"}");
        assertEquals(400, format.statusCode());
        HttpResponse<String> dims = client.post("/embeddings", "{\"input\":\"a\",\"dimensions\":385}");
        assertEquals(400, dims.statusCode());
        assertEquals("dimensions", TestClient.JSON.readTree(dims.body()).get("error").get("param").asText());
        assertEquals(404, client.get("/embeddings").statusCode());
    }

    private static void assertBadInput(String body, String message) throws Exception {
        HttpResponse<String> response = client.post("/embeddings", body);
        assertEquals(400, response.statusCode(), body);
        JsonNode error = TestClient.JSON.readTree(response.body()).get("error");
        assertEquals("input", error.get("param").asText());
        if (message != null) assertEquals(message, error.get("message").asText());
    }

    private static double norm(JsonNode vector) {
        double sum = 0;
        for (JsonNode v : vector) sum += v.asDouble() * v.asDouble();
        return Math.sqrt(sum);
    }
}

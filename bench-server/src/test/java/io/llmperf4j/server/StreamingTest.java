package io.llmperf4j.server;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static io.llmperf4j.server.TestClient.chatBody;
import static io.llmperf4j.server.TestClient.completionBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StreamingTest {

    private static final Duration TTFT = Duration.ofMillis(30);
    private static final Duration ITL = Duration.ofMillis(4);
    private static final Set<String> WORDS = Set.of(TokenText.words());

    private static SimulatedServer server;
    private static SimulatedServer chunkedServer;
    private static TestClient client;
    private static TestClient chunkedClient;

    @BeforeAll
    static void start() {
        SimulatorConfig config = SimulatorConfig.builder()
                .timeToFirstToken(TTFT).interTokenDelay(ITL).defaultMaxTokens(12).build();
        server = SimulatedServer.start(config);
        chunkedServer = SimulatedServer.start(config.toBuilder().tokensPerChunk(4).build());
        client = new TestClient(server);
        chunkedClient = new TestClient(chunkedServer);
    }

    @AfterAll
    static void stop() {
        server.close();
        chunkedServer.close();
    }

    @Test
    void chatStreamHasRoleThenContentThenFinishThenDone() throws Exception {
        TestClient.Streamed response = client.stream("/chat/completions", chatBody("Hello there", true, 7, ""));

        assertEquals(200, response.status());
        assertTrue(response.contentType().startsWith("text/event-stream"), response.contentType());
        assertTrue(response.events().get(response.events().size() - 1).isDone(), "ends with [DONE]");
        List<JsonNode> chunks = response.jsonEvents();
        assertEquals(1 + 7 + 1, chunks.size(), "role, 7 content chunks, finish; no usage unless asked");

        String id = chunks.get(0).get("id").asText();
        assertTrue(id.startsWith("chatcmpl-"), id);
        for (JsonNode chunk : chunks) {
            assertEquals(id, chunk.get("id").asText());
            assertEquals("chat.completion.chunk", chunk.get("object").asText());
            assertEquals("test-model", chunk.get("model").asText());
            assertTrue(chunk.get("created").asLong() > 1_600_000_000L);
            assertEquals(1, chunk.get("choices").size());
            assertEquals(0, chunk.get("choices").get(0).get("index").asInt());
            assertFalse(chunk.has("usage"));
        }
        JsonNode role = chunks.get(0).get("choices").get(0);
        assertEquals("{\"role\":\"assistant\",\"content\":\"\"}", role.get("delta").toString());
        assertTrue(role.get("finish_reason").isNull());

        List<String> contents = new ArrayList<>();
        for (JsonNode chunk : chunks.subList(1, 8)) {
            JsonNode choice = chunk.get("choices").get(0);
            assertTrue(choice.get("finish_reason").isNull());
            contents.add(choice.get("delta").get("content").asText());
        }
        assertOneWordTokens(contents, 1);

        JsonNode finish = chunks.get(8).get("choices").get(0);
        assertEquals("{}", finish.get("delta").toString());
        assertEquals("length", finish.get("finish_reason").asText());
    }

    @Test
    void completionStreamCarriesTextAndNoRoleChunk() throws Exception {
        TestClient.Streamed response = client.stream("/completions", completionBody("Once upon", true, 5, ""));

        assertEquals(200, response.status());
        List<JsonNode> chunks = response.jsonEvents();
        assertEquals(5 + 1, chunks.size());
        String id = chunks.get(0).get("id").asText();
        assertTrue(id.startsWith("cmpl-"), id);
        List<String> texts = new ArrayList<>();
        for (JsonNode chunk : chunks.subList(0, 5)) {
            assertEquals(id, chunk.get("id").asText());
            assertEquals("text_completion", chunk.get("object").asText());
            assertTrue(chunk.get("choices").get(0).get("finish_reason").isNull());
            texts.add(chunk.get("choices").get(0).get("text").asText());
        }
        assertOneWordTokens(texts, 1);
        JsonNode finish = chunks.get(5).get("choices").get(0);
        assertEquals("", finish.get("text").asText());
        assertEquals("length", finish.get("finish_reason").asText());
        assertTrue(response.events().get(response.events().size() - 1).isDone());
    }

    @Test
    void usageChunkOnlyWhenRequested() throws Exception {
        String prompt = "Count these characters please";
        TestClient.Streamed withUsage = client.stream("/chat/completions",
                chatBody(prompt, true, 5, "\"stream_options\":{\"include_usage\":true}"));
        List<JsonNode> chunks = withUsage.jsonEvents();
        assertEquals(1 + 5 + 1 + 1, chunks.size());
        JsonNode usageChunk = chunks.get(chunks.size() - 1);
        assertEquals(0, usageChunk.get("choices").size());
        assertEquals(chunks.get(0).get("id").asText(), usageChunk.get("id").asText());
        JsonNode usage = usageChunk.get("usage");
        int expectedPromptTokens = PromptTokens.estimate("\n" + prompt);
        assertEquals(expectedPromptTokens, usage.get("prompt_tokens").asInt());
        assertEquals(5, usage.get("completion_tokens").asInt());
        assertEquals(expectedPromptTokens + 5, usage.get("total_tokens").asInt());
        assertTrue(withUsage.events().get(withUsage.events().size() - 1).isDone());

        TestClient.Streamed withoutUsage = client.stream("/chat/completions",
                chatBody(prompt, true, 5, "\"stream_options\":{\"include_usage\":false}"));
        assertEquals(1 + 5 + 1, withoutUsage.jsonEvents().size());
        assertTrue(withoutUsage.jsonEvents().stream().noneMatch(c -> c.has("usage")));
    }

    @Test
    void maxTokensIsExactAndMaxCompletionTokensWins() throws Exception {
        for (int maxTokens : new int[] {1, 2, 33}) {
            assertEquals(maxTokens, streamedChatText("exact " + maxTokens, maxTokens, "").split(" ").length);
        }
        String text = streamedChatText("prefer", 10, "\"max_completion_tokens\":3");
        assertEquals(3, text.split(" ").length);

        String noLimit = "{\"messages\":[{\"role\":\"user\",\"content\":\"default\"}],\"stream\":true}";
        List<JsonNode> chunks = client.stream("/chat/completions", noLimit).jsonEvents();
        assertEquals(1 + 12 + 1, chunks.size(), "the configured defaultMaxTokens (12)");
        assertEquals(SimulatorConfig.DEFAULT_MODEL_ID, chunks.get(0).get("model").asText(),
                "no model in the request: the first served id");
    }

    @Test
    void tokensPerChunkGroupsContent() throws Exception {
        TestClient.Streamed response = chunkedClient.stream("/chat/completions",
                chatBody("grouped", true, 10, "\"stream_options\":{\"include_usage\":true}"));
        List<JsonNode> chunks = response.jsonEvents();
        assertEquals(1 + 3 + 1 + 1, chunks.size(), "role, 4+4+2 tokens, finish, usage");
        List<String> contents = new ArrayList<>();
        for (JsonNode chunk : chunks.subList(1, 4)) contents.add(chunk.get("choices").get(0).get("delta")
                .get("content").asText());
        assertEquals(4, contents.get(0).split(" ").length);
        assertFalse(contents.get(0).startsWith(" "));
        assertEquals(" ", contents.get(1).substring(0, 1));
        assertEquals(4, contents.get(1).trim().split(" ").length);
        assertEquals(2, contents.get(2).trim().split(" ").length);
        assertEquals(10, chunks.get(5).get("usage").get("completion_tokens").asInt());
        assertEquals(streamedChatText("grouped", 10, ""), String.join("", contents),
                "grouping does not change the text");

        // chunk k (content event k+1) is due at ttft + k * 4 * itl after the slot was granted
        List<TestClient.Event> events = response.events();
        for (int k = 0; k < 3; k++) {
            long elapsedNanos = events.get(1 + k).arrivalNanos() - response.sentNanos();
            long dueNanos = TTFT.toNanos() + k * 4 * ITL.toNanos();
            assertTrue(elapsedNanos >= dueNanos, "chunk " + k + " after " + elapsedNanos + " ns < " + dueNanos);
        }
    }

    @Test
    void contentChunksNeverArriveBeforeTheirDueTime() throws Exception {
        TestClient.Streamed response = client.stream("/chat/completions", chatBody("timing", true, 20, ""));
        List<TestClient.Event> events = response.events();
        assertTrue(events.get(0).arrivalNanos() - response.sentNanos() >= TTFT.toNanos(), "role chunk at TTFT");
        for (int k = 0; k < 20; k++) {
            long elapsedNanos = events.get(1 + k).arrivalNanos() - response.sentNanos();
            long dueNanos = TTFT.toNanos() + k * ITL.toNanos();
            assertTrue(elapsedNanos >= dueNanos, "token " + k + " after " + elapsedNanos + " ns < " + dueNanos);
        }
    }

    @Test
    void textIsDeterministicPerPromptAndIdsAreUnique() throws Exception {
        TestClient.Streamed first = client.stream("/chat/completions", chatBody("same prompt", true, 20, ""));
        TestClient.Streamed second = client.stream("/chat/completions", chatBody("same prompt", true, 20, ""));
        assertEquals(text(first), text(second));
        assertNotEquals(first.jsonEvents().get(0).get("id").asText(), second.jsonEvents().get(0).get("id").asText());
        assertNotEquals(text(first), streamedChatText("another prompt", 20, ""));
        assertTrue(streamedChatText("same prompt", 30, "").startsWith(text(first)), "shorter is a prefix");

        JsonNode full = client.postJson("/chat/completions", chatBody("same prompt", false, 20, ""));
        assertEquals(text(first), full.get("choices").get(0).get("message").get("content").asText(),
                "streaming and non-streaming generate the same text");
    }

    private static String streamedChatText(String prompt, int maxTokens, String extra) throws Exception {
        return text(client.stream("/chat/completions", chatBody(prompt, true, maxTokens, extra)));
    }

    private static String text(TestClient.Streamed response) {
        StringBuilder text = new StringBuilder();
        for (JsonNode chunk : response.jsonEvents()) {
            JsonNode content = chunk.path("choices").path(0).path("delta").path("content");
            if (content.isTextual()) text.append(content.asText());
        }
        return text.toString();
    }

    /** Every chunk holds tokensPerChunk words; the first has no leading space, each later word has one. */
    private static void assertOneWordTokens(List<String> chunks, int tokensPerChunk) {
        for (int i = 0; i < chunks.size(); i++) {
            String chunk = chunks.get(i);
            assertEquals(i > 0, chunk.startsWith(" "), "chunk " + i + " '" + chunk + "'");
            String[] words = chunk.trim().split(" ");
            assertEquals(tokensPerChunk, words.length);
            for (String word : words) assertTrue(WORDS.contains(word), word);
        }
    }
}

package io.llmperf4j.server;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The simulator's front in front of an engine ({@link EngineServer}): the engine's text and counts in each API's
 * wire format, the engine's refusals and failures as errors, keep-alive, and a client leaving mid-generation.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EngineServerTest {
    private static final String MODEL = "word-engine";
    private static final int PROMPT_TOKENS = 7;

    private static WordEngine engine;
    private static EngineServer server;
    private static TestClient client;

    @BeforeAll
    static void start() {
        engine = new WordEngine();
        server = EngineServer.start(engine, MODEL, "127.0.0.1", 0);
        client = new TestClient(server.baseUrl(), null);
    }

    @AfterAll
    static void stop() {
        server.close();
        engine.close();
    }

    /**
     * Generates "w0", " w1", ... on its own thread, one piece per token, with {@value #PROMPT_TOKENS} prompt tokens.
     * A prompt or last message "refuse" fails before starting, "break" after two tokens, "slow" waits between
     * tokens until the client leaves.
     */
    static final class WordEngine implements GenerationEngine, AutoCloseable {
        final ExecutorService thread = Executors.newSingleThreadExecutor();
        final AtomicReference<GenerationRequest> last = new AtomicReference<>();
        final CountDownLatch slowCancelled = new CountDownLatch(1);

        @Override
        public void generate(GenerationRequest request, GenerationSink sink) {
            last.set(request);
            String prompt = request.isChat() ? request.messages().get(request.messages().size() - 1).content()
                    : request.prompt();
            thread.execute(() -> {
                if (prompt.equals("refuse")) {
                    sink.fail("The prompt is too long for this engine.", true);
                    return;
                }
                sink.start(PROMPT_TOKENS);
                for (int i = 0; i < request.maxTokens(); i++) {
                    if (sink.cancelled()) {
                        slowCancelled.countDown();
                        return;
                    }
                    if (prompt.equals("break") && i == 2) {
                        sink.fail("The engine broke.", false);
                        return;
                    }
                    sink.text(word(i));
                    if (prompt.equals("slow")) sleepQuietly();
                }
                sink.end(request.maxTokens(), false);
            });
        }

        @Override
        public void close() {
            thread.shutdownNow();
        }

        private static void sleepQuietly() {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static String word(int i) {
        return (i == 0 ? "" : " ") + "w" + i;
    }

    static String words(int n) {
        return IntStream.range(0, n).mapToObj(EngineServerTest::word).collect(Collectors.joining());
    }

    @Test
    void aChatStreamIsTheSimulatorsFormatWithTheEnginesTextAndUsage() throws Exception {
        TestClient.Streamed stream = client.stream("/chat/completions",
                TestClient.chatBody("Hello", true, 5, "\"stream_options\":{\"include_usage\":true}"));

        assertEquals(200, stream.status());
        assertTrue(stream.contentType().startsWith("text/event-stream"), stream.contentType());
        List<JsonNode> events = stream.jsonEvents();
        assertEquals(1 + 5 + 1 + 1, events.size(), events::toString); // role, 5 words, finish, usage
        assertEquals("assistant", events.get(0).at("/choices/0/delta/role").asText());
        String text = events.subList(1, 6).stream().map(e -> e.at("/choices/0/delta/content").asText())
                .collect(Collectors.joining());
        assertEquals(words(5), text);
        assertEquals("length", events.get(6).at("/choices/0/finish_reason").asText());
        assertEquals(PROMPT_TOKENS, events.get(7).at("/usage/prompt_tokens").asInt());
        assertEquals(5, events.get(7).at("/usage/completion_tokens").asInt());
        assertEquals(PROMPT_TOKENS + 5, events.get(7).at("/usage/total_tokens").asInt());
        assertTrue(stream.events().get(stream.events().size() - 1).isDone());
        for (JsonNode event : events) {
            assertEquals(events.get(0).get("id"), event.get("id"));
            assertTrue(event.get("id").asText().startsWith("chatcmpl-"), event::toString);
            assertEquals("chat.completion.chunk", event.get("object").asText());
        }
    }

    @Test
    void aTextCompletionIsOneObjectServedAsTheEnginesModelWhenNoneIsAsked() throws Exception {
        JsonNode response = client.postJson("/completions", "{\"prompt\":\"Hi\",\"max_tokens\":3}");

        assertEquals("text_completion", response.get("object").asText());
        assertEquals(MODEL, response.get("model").asText());
        assertEquals(words(3), response.at("/choices/0/text").asText());
        assertEquals("length", response.at("/choices/0/finish_reason").asText());
        assertEquals(PROMPT_TOKENS, response.at("/usage/prompt_tokens").asInt());
        assertEquals(3, response.at("/usage/completion_tokens").asInt());
        assertEquals("Hi", engine.last.get().prompt());
    }

    @Test
    void anthropicMessagesComeFromTheSameEngine() throws Exception {
        TestClient.Lines lines = client.lines("/messages", "{\"model\":\"claude\",\"max_tokens\":4,\"stream\":true,"
                + "\"system\":\"Be brief.\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}]}");

        assertEquals(200, lines.status());
        List<String> names = AnthropicMessagesTest.eventNames(lines);
        assertEquals(List.of("message_start", "content_block_start", "ping", "content_block_delta",
                "content_block_delta", "content_block_delta", "content_block_delta", "content_block_stop",
                "message_delta", "message_stop"), names);
        StringBuilder text = new StringBuilder();
        for (String line : lines.texts()) {
            if (!line.startsWith("data: ")) continue;
            JsonNode data = TestClient.JSON.readTree(line.substring(6));
            if (data.get("type").asText().equals("content_block_delta")) text.append(data.at("/delta/text").asText());
            if (data.get("type").asText().equals("message_start")) {
                assertEquals(PROMPT_TOKENS, data.at("/message/usage/input_tokens").asInt());
            }
        }
        assertEquals(words(4), text.toString());
        assertEquals(List.of(new GenerationRequest.ChatMessage("system", "Be brief."),
                new GenerationRequest.ChatMessage("user", "Hello")), engine.last.get().messages());
    }

    @Test
    void theEngineIsGivenTheConversationAndTheSamplingParameters() throws Exception {
        client.postJson("/chat/completions", "{\"messages\":[{\"role\":\"system\",\"content\":\"S\"},"
                + "{\"content\":[{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"text\",\"text\":\"b\"}]},"
                + "{\"role\":\"assistant\",\"content\":\"c\"},{\"role\":\"user\",\"content\":\"d\"}],"
                + "\"max_completion_tokens\":2,\"max_tokens\":9,\"temperature\":0.5,\"top_p\":0.9,\"seed\":42,"
                + "\"ignore_eos\":true,\"min_tokens\":1,\"stop\":[\"x\",\"y z\"]}");

        GenerationRequest request = engine.last.get();
        assertEquals(List.of(new GenerationRequest.ChatMessage("system", "S"),
                new GenerationRequest.ChatMessage("user", "ab"), new GenerationRequest.ChatMessage("assistant", "c"),
                new GenerationRequest.ChatMessage("user", "d")), request.messages());
        assertEquals(2, request.maxTokens());
        assertEquals(0.5, request.temperature());
        assertEquals(0.9, request.topP());
        assertEquals(42, request.seed());
        assertTrue(request.ignoreEos());
        assertEquals(1, request.minTokens());
        assertEquals(List.of("x", "y z"), request.stop());

        client.postJson("/completions", "{\"prompt\":\"p\",\"max_tokens\":2,\"stop\":\"one\"}");
        assertEquals(List.of("one"), engine.last.get().stop(), "a single string is a list of one");
    }

    @Test
    void samplingFieldsOfTheWrongTypeAreRefusedNamingTheField() throws Exception {
        for (String field : List.of("\"temperature\":\"hot\"", "\"top_p\":true", "\"seed\":1.5", "\"stop\":5",
                "\"stop\":[\"a\",1]", "\"stop\":[\"\"]")) {
            HttpResponse<String> refused = client.post("/completions",
                    "{\"prompt\":\"p\",\"max_tokens\":2," + field + "}");
            assertEquals(400, refused.statusCode(), field);
            String param = field.substring(1, field.indexOf('"', 1));
            assertEquals(param, TestClient.JSON.readTree(refused.body()).at("/error/param").asText(), field);
        }
    }

    @Test
    void healthAnswersAJsonBody() throws Exception {
        HttpResponse<String> health = new TestClient(server.baseUrl().replace("/v1", ""), null).get("/health");
        assertEquals(200, health.statusCode());
        assertEquals("{\"status\":\"ok\"}", health.body());
    }

    @Test
    void aRefusalBeforeStartIsAnErrorInTheEndpointsDialect() throws Exception {
        HttpResponse<String> openAi = client.post("/chat/completions", TestClient.chatBody("refuse", true, 5, ""));
        assertEquals(400, openAi.statusCode());
        JsonNode error = TestClient.JSON.readTree(openAi.body()).get("error");
        assertEquals("The prompt is too long for this engine.", error.get("message").asText());
        assertEquals("invalid_request_error", error.get("type").asText());
        assertEquals(400, error.get("code").asInt());

        HttpResponse<String> anthropic = client.post("/messages",
                "{\"max_tokens\":3,\"messages\":[{\"role\":\"user\",\"content\":\"refuse\"}]}");
        assertEquals(400, anthropic.statusCode());
        JsonNode body = TestClient.JSON.readTree(anthropic.body());
        assertEquals("error", body.get("type").asText());
        assertEquals("The prompt is too long for this engine.", body.at("/error/message").asText());
    }

    @Test
    void aFailureMidStreamEndsTheStreamWithAnErrorEvent() throws Exception {
        TestClient.Streamed stream = client.stream("/completions", TestClient.completionBody("break", true, 5, ""));

        assertEquals(200, stream.status());
        List<TestClient.Event> events = stream.events();
        assertEquals(List.of("w0", " w1"), events.subList(0, 2).stream()
                .map(e -> e.json().at("/choices/0/text").asText()).toList());
        assertEquals("The engine broke.", events.get(2).json().at("/error/message").asText());
        assertEquals(500, events.get(2).json().at("/error/code").asInt());
        assertTrue(events.get(3).isDone());
        assertEquals(4, events.size());
    }

    @Test
    void pipelinedRequestsOnOneConnectionAreAnsweredInOrder() throws Exception {
        String first = "{\"prompt\":\"one\",\"max_tokens\":2}";
        String second = "{\"prompt\":\"two\",\"max_tokens\":3}";
        String requests = request(first, false) + request(second, true);
        String received;
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(15_000); // a safety net against a hung test, never a timing assertion
            OutputStream out = socket.getOutputStream();
            out.write(requests.getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            in.transferTo(bytes);
            received = bytes.toString(StandardCharsets.UTF_8);
        }
        int firstAt = received.indexOf("HTTP/1.1 200 OK");
        int secondAt = received.indexOf("HTTP/1.1 200 OK", firstAt + 1);
        assertTrue(firstAt >= 0 && secondAt > firstAt, received);
        assertTrue(received.substring(firstAt, secondAt).contains("\"text\":\"" + words(2) + "\""), received);
        assertTrue(received.substring(secondAt).contains("\"text\":\"" + words(3) + "\""), received);
    }

    @Test
    void aClientLeavingMidStreamCancelsTheGeneration() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(15_000);
            OutputStream out = socket.getOutputStream();
            out.write(request("{\"prompt\":\"slow\",\"max_tokens\":100000,\"stream\":true}", true)
                    .getBytes(StandardCharsets.UTF_8));
            out.flush();
            byte[] firstBytes = new byte[64];
            assertTrue(socket.getInputStream().read(firstBytes) > 0, "the stream began");
        }
        assertTrue(engine.slowCancelled.await(15, TimeUnit.SECONDS), "the engine saw the client leave");
    }

    @Test
    void modelsListTheEnginesModelAndEmbeddingsAreNotServed() throws Exception {
        JsonNode models = TestClient.JSON.readTree(client.get("/models").body());
        assertEquals(MODEL, models.at("/data/0/id").asText());
        assertEquals(1, models.get("data").size());

        HttpResponse<String> embeddings = client.post("/embeddings", "{\"input\":\"x\"}");
        assertEquals(404, embeddings.statusCode());
        assertFalse(TestClient.JSON.readTree(embeddings.body()).at("/error/message").asText().isEmpty());
    }

    private static String request(String body, boolean close) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + (close ? "Connection: close\r\n" : "") + "Content-Length: " + bytes.length + "\r\n\r\n" + body;
    }
}

package io.llmperf4j.llama;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The OpenAI-compatible server over real sockets, with llama.cpp decoding the generated model. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LlamaServerTest {
    private static final String EMOJI = "\uD83E\uDD99";

    private static String url(String path) {
        return TinyLlamaFixture.server().baseUrl() + path;
    }

    private static String chatBody(String content, int maxTokens, boolean stream) {
        return "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" + content + "\"}],\"max_tokens\":"
                + maxTokens + ",\"stream\":" + stream + ",\"stream_options\":{\"include_usage\":true},"
                + "\"temperature\":0.8,\"top_p\":0.95}";
    }

    @Test
    void chatStreamCarriesTheModelsTextAndTheEnginesUsage() throws Exception {
        List<SseClient.Event> events = SseClient.stream(url("/chat/completions"), chatBody("Say something", 31, true));

        assertEquals("assistant", events.get(0).data().at("/choices/0/delta/role").asText());
        StringBuilder text = new StringBuilder();
        List<String> pieces = new ArrayList<>();
        for (SseClient.Event event : events.subList(1, events.size() - 3)) {
            String piece = event.data().at("/choices/0/delta/content").asText();
            pieces.add(piece);
            text.append(piece);
            assertTrue(event.data().at("/choices/0/finish_reason").isNull(), event.data()::toString);
        }
        assertEquals(TinyLlamaModel.generatedText(31), text.toString());
        assertEquals("the JSON tokens stream" + EMOJI + " via HTTP servers JSON tokens stream" + EMOJI
                + " via HTTP servers JSON tokens stream" + EMOJI + " via HTTP servers", text.toString());
        // 31 tokens, 3 of 4 byte tokens each held back until their emoji is whole: 31 - 3 * 3 events
        assertEquals(22, pieces.size(), pieces::toString);
        assertEquals(3, pieces.stream().filter(EMOJI::equals).count(), "each emoji arrives whole in one event");
        assertTrue(events.stream().anyMatch(e -> e.raw().contains("\"content\":\"" + EMOJI + "\"")),
                "as raw UTF-8, not as \\u escapes");

        JsonNode finish = events.get(events.size() - 3).data();
        assertEquals("length", finish.at("/choices/0/finish_reason").asText());
        JsonNode usage = events.get(events.size() - 2).data();
        assertTrue(usage.get("choices").isEmpty());
        int promptTokens = TinyLlamaFixture.engine().countPromptTokens("[INST] Say something [/INST]");
        assertEquals(promptTokens, usage.at("/usage/prompt_tokens").asInt());
        assertEquals(31, usage.at("/usage/completion_tokens").asInt());
        assertEquals(promptTokens + 31, usage.at("/usage/total_tokens").asInt());
        assertTrue(events.get(events.size() - 1).isDone());
        for (SseClient.Event event : events.subList(0, events.size() - 1)) {
            assertEquals("chat.completion.chunk", event.data().get("object").asText());
            assertEquals("m", event.data().get("model").asText());
            assertEquals(events.get(0).data().get("id"), event.data().get("id"));
        }
    }

    @Test
    void textCompletionCountsThePromptWithBos() throws Exception {
        SseClient.Response response = SseClient.post(url("/completions"),
                "{\"prompt\":\"Hello world\",\"max_tokens\":12}");
        assertEquals(200, response.status(), response.body()::toString);
        assertEquals("text_completion", response.body().get("object").asText());
        assertEquals(TinyLlamaModel.generatedText(12), response.body().at("/choices/0/text").asText());
        assertEquals(3, response.body().at("/usage/prompt_tokens").asInt(), "BOS, Hello, world");
        assertEquals(12, response.body().at("/usage/completion_tokens").asInt());
        assertEquals(TinyLlamaFixture.MODEL_ID, response.body().get("model").asText(), "no model asked: the served id");
    }

    @Test
    void aBudgetEndingInsideACharacterSendsNoBrokenBytes() throws Exception {
        // tokens: the, JSON, tokens, stream, <F0>, <9F>: the emoji's first two bytes are never sent
        SseClient.Response response = SseClient.post(url("/chat/completions"), chatBody("Hi", 6, false));
        assertEquals("the JSON tokens stream", response.body().at("/choices/0/message/content").asText());
        assertEquals(6, response.body().at("/usage/completion_tokens").asInt());
        assertEquals(2, TinyLlamaModel.heldBackTokens(6));
    }

    @Test
    void oneDecodingThreadServesRequestsOneAfterAnother() throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(3);
        try {
            List<Future<List<SseClient.Event>>> streams = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                String body = chatBody("Request " + i, 200, true);
                streams.add(clients.submit(() -> SseClient.stream(url("/chat/completions"), body)));
            }
            List<List<SseClient.Event>> done = new ArrayList<>();
            for (Future<List<SseClient.Event>> stream : streams) done.add(stream.get());
            done.sort(Comparator.comparingLong(events -> events.get(1).nanos()));
            // Client threads stamp arrivals independently, so the last token of one stream and the first of the next can
            // swap by a scheduling hiccup; parallel decoding would interleave them from the start. Compare with the
            // previous stream's middle token.
            for (int i = 1; i < done.size(); i++) {
                List<SseClient.Event> previous = done.get(i - 1);
                long previousMiddleToken = previous.get(previous.size() / 2).nanos();
                long firstToken = done.get(i).get(1).nanos();
                assertTrue(firstToken >= previousMiddleToken, "request " + i + " starts decoding after the one before");
            }
            for (List<SseClient.Event> events : done) {
                assertEquals(200, events.get(events.size() - 2).data().at("/usage/completion_tokens").asInt());
            }
        } finally {
            clients.shutdownNow();
        }
    }

    @Test
    void listsTheModelAndRefusesBadRequests() throws Exception {
        SseClient.Response models = SseClient.get(url("/models"));
        assertEquals(200, models.status());
        assertEquals(TinyLlamaFixture.MODEL_ID, models.body().at("/data/0/id").asText());

        SseClient.Response notJson = SseClient.post(url("/chat/completions"), "{nope");
        assertEquals(400, notJson.status());
        assertEquals(400, notJson.body().at("/error/code").asInt());

        SseClient.Response noMessages = SseClient.post(url("/chat/completions"), "{\"max_tokens\":3}");
        assertEquals("messages", noMessages.body().at("/error/param").asText());

        SseClient.Response tooLong = SseClient.post(url("/completions"), "{\"prompt\":\"Hi\",\"max_tokens\":5000}");
        assertEquals(400, tooLong.status());
        assertTrue(tooLong.body().at("/error/message").asText().startsWith(
                "This model's maximum context length is 2048 tokens. However, you requested 5002 tokens"),
                tooLong.body()::toString);

        SseClient.Response unknown = SseClient.post(url("/embeddings"), "{}");
        assertEquals(404, unknown.status());
        assertFalse(unknown.body().at("/error/message").asText().isEmpty());
    }

    @Test
    void anthropicMessagesAreServedByTheSameFront() throws Exception {
        SseClient.Response response = SseClient.post(url("/messages"), "{\"model\":\"claude\",\"max_tokens\":12,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Say something\"}]}");

        assertEquals(200, response.status(), response.body()::toString);
        assertEquals("message", response.body().get("type").asText());
        assertEquals(TinyLlamaModel.generatedText(12), response.body().at("/content/0/text").asText());
        assertEquals("max_tokens", response.body().get("stop_reason").asText());
        int promptTokens = TinyLlamaFixture.engine().countPromptTokens("[INST] Say something [/INST]");
        assertEquals(promptTokens, response.body().at("/usage/input_tokens").asInt());
        assertEquals(12, response.body().at("/usage/output_tokens").asInt());
    }

    @Test
    void refusesWhatLlamaCppCannotTake() throws Exception {
        SseClient.Response toolRole = SseClient.post(url("/chat/completions"),
                "{\"messages\":[{\"role\":\"tool\",\"content\":\"42\"}],\"max_tokens\":3}");
        assertEquals(400, toolRole.status());
        assertTrue(toolRole.body().at("/error/message").asText().startsWith("Role 'tool' is not supported here"),
                toolRole.body()::toString);

        SseClient.Response tokenIds = SseClient.post(url("/completions"), "{\"prompt\":[1,2,3],\"max_tokens\":3}");
        assertEquals(400, tokenIds.status());
        assertTrue(tokenIds.body().at("/error/message").asText().startsWith("prompt must be a string"),
                tokenIds.body()::toString);
    }

    @Test
    void aChatMessageWithANulCharacterIsRefusedRatherThanCutThere() throws Exception {
        // llama.cpp returns the rendered chat template as a C string: it ended at the NUL, and "[INST] Hello [/INST]"
        // was served (prompt_tokens 9 instead of 14) without a word
        SseClient.Response nul = SseClient.post(url("/chat/completions"), "{\"messages\":[{\"role\":\"user\","
                + "\"content\":\"Hello\\u0000 world and more words\"}],\"max_tokens\":3}");
        assertEquals(400, nul.status(), nul.body()::toString);
        assertTrue(nul.body().at("/error/message").asText().startsWith(
                "A user message's content contains a NUL character (\\u0000)"), nul.body()::toString);

        SseClient.Response system = SseClient.post(url("/messages"), "{\"system\":\"be\\u0000brief\",\"max_tokens\":3,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}");
        assertEquals(400, system.status(), system.body()::toString);
        assertTrue(system.body().toString().contains("A system message's content contains a NUL character"),
                system.body()::toString);
    }

    @Test
    void aPromptEndingOnThePathContinuesItWithoutThe() throws Exception {
        SseClient.Response onPath = SseClient.post(url("/completions"),
                "{\"prompt\":\"Explain HTTP\",\"max_tokens\":4}");
        assertEquals(" servers JSON tokens stream", onPath.body().at("/choices/0/text").asText(),
                onPath.body()::toString);

        SseClient.Response offPath = SseClient.post(url("/completions"), "{\"prompt\":\"Explain\",\"max_tokens\":4}");
        assertEquals(TinyLlamaModel.generatedText(4), offPath.body().at("/choices/0/text").asText());
    }

    @Test
    void aStopStringEndsTheTextBeforeIt() throws Exception {
        SseClient.Response text = SseClient.post(url("/completions"),
                "{\"prompt\":\"Hi\",\"max_tokens\":12,\"stop\":[\"tokens\"]}");
        assertEquals(200, text.status(), text.body()::toString);
        assertEquals("the JSON ", text.body().at("/choices/0/text").asText());
        assertEquals("stop", text.body().at("/choices/0/finish_reason").asText());
        assertEquals(3, text.body().at("/usage/completion_tokens").asInt(), "the, JSON, tokens");

        List<SseClient.Event> events = SseClient.stream(url("/chat/completions"), "{\"messages\":[{\"role\":\"user\","
                + "\"content\":\"Hi\"}],\"max_tokens\":30,\"stream\":true,\"stop\":\"HTTP\"}");
        StringBuilder content = new StringBuilder();
        for (SseClient.Event event : events.subList(1, events.size() - 2)) {
            content.append(event.data().at("/choices/0/delta/content").asText());
        }
        assertEquals("the JSON tokens stream" + EMOJI + " via ", content.toString());
        assertFalse(events.stream().anyMatch(e -> e.raw().contains("HTTP")), "no piece of the stop string is sent");
        assertEquals("stop", events.get(events.size() - 2).data().at("/choices/0/finish_reason").asText());
    }

    @Test
    void samplingFieldsOfTheWrongTypeAreRefused() throws Exception {
        SseClient.Response hot = SseClient.post(url("/completions"),
                "{\"prompt\":\"Hi\",\"max_tokens\":3,\"temperature\":\"hot\"}");
        assertEquals(400, hot.status(), hot.body()::toString);
        assertEquals("temperature", hot.body().at("/error/param").asText());

        SseClient.Response stop = SseClient.post(url("/completions"), "{\"prompt\":\"Hi\",\"max_tokens\":3,\"stop\":5}");
        assertEquals(400, stop.status(), stop.body()::toString);
        assertEquals("stop", stop.body().at("/error/param").asText());
    }
}

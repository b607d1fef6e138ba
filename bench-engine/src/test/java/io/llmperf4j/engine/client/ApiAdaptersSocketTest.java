package io.llmperf4j.engine.client;

import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.server.FaultKind;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every {@link LlmApi} end to end over a loopback socket against the simulated server, normal and faulty. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ApiAdaptersSocketTest {

    private static final int MAX_TOKENS = 12;
    private static SimulatedServer server;

    @BeforeAll
    static void startServer() {
        server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5))
                .interTokenDelay(Duration.ofMillis(1))
                .build());
    }

    @AfterAll
    static void stopServer() {
        if (server != null) server.close();
    }

    private static LlmApi api(String name) {
        switch (name) {
            case "openai": return new OpenAiChatApi(true);
            case "openai-nostream": return new OpenAiChatApi(false);
            case "openai-completions": return new OpenAiCompletionsApi(true);
            case "openai-completions-nostream": return new OpenAiCompletionsApi(false);
            case "anthropic": return new AnthropicMessagesApi();
            case "anthropic-nostream": return new AnthropicMessagesApi(false);
            default: throw new IllegalArgumentException(name);
        }
    }

    private static RequestRecord send(LlmApi api, Map<String, String> headers, RequestSpec spec) {
        ClientConfig config = ClientConfig.builder(api.endpoint(server.baseUrl()), "m")
                .extraHeaders(headers).maxConnections(2).requestTimeout(Duration.ofSeconds(20)).build();
        try (NettyLlmClient client = new NettyLlmClient(config, api)) {
            return client.send(spec).completion().join();
        }
    }

    private static RequestSpec spec() {
        return new RequestSpec(0, "Tell me a story about the sea and the wind.", 10, MAX_TOKENS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"openai", "openai-nostream", "openai-completions", "openai-completions-nostream",
            "anthropic", "anthropic-nostream"})
    void generatesWithTheSameMetrics(String name) {
        LlmApi api = api(name);
        RequestRecord r = send(api, Map.of(), spec());
        assertNull(r.failure(), () -> name + ": " + r.failure());
        assertTrue(r.ttftNanos() > 0, "ttft");
        assertTrue(r.e2eNanos() >= r.ttftNanos());
        assertFalse(r.generatedText().isEmpty());
        assertEquals(MAX_TOKENS, r.usageCompletionTokens());
        assertNotNull(r.usagePromptTokens());
        assertTrue(r.usagePromptTokens() > 0);
        assertNotNull(r.serverResponseId());
        assertNotNull(r.finishReason());
        if (api.streaming()) {
            assertTrue(r.contentEventNanos().length > 1, "one event per token");
        } else {
            assertEquals(r.e2eNanos(), r.ttftNanos(), "no first token without streaming: TTFT = E2E");
            assertEquals(1, r.contentEventNanos().length);
        }
        // the simulator's text contract: n tokens are n words
        assertEquals(MAX_TOKENS, r.generatedText().trim().split(" +").length, r.generatedText());
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void anthropicFinishReasonIsTheStopReason(boolean stream) {
        RequestRecord r = send(new AnthropicMessagesApi(stream), Map.of(), spec());
        assertEquals("max_tokens", r.finishReason());
        assertTrue(r.serverResponseId().startsWith("msg_"));
    }

    @Test
    void anthropicNoStreamReadsTheWholeMessage() {
        RequestRecord r = send(new AnthropicMessagesApi(false), Map.of(), spec());
        assertNull(r.failure(), () -> String.valueOf(r.failure()));
        assertEquals(r.e2eNanos(), r.ttftNanos(), "TTFT = E2E without a stream");
        assertEquals(1, r.dataEventCount(), "one body");
        assertEquals(MAX_TOKENS, r.usageCompletionTokens());
        assertTrue(r.usagePromptTokens() > 0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"openai", "openai-nostream", "openai-completions", "openai-completions-nostream",
            "anthropic", "anthropic-nostream"})
    void malformedIsRecordedNotThrown(String name) {
        RequestRecord r = send(api(name), Map.of(FaultKind.HEADER, "malformed_event"), spec());
        assertNotNull(r.failure(), name);
        assertEquals(FailureKind.MALFORMED_EVENT, r.failure().kind(), () -> name + ": " + r.failure());
    }

    @ParameterizedTest
    @ValueSource(strings = {"openai", "openai-nostream", "openai-completions", "openai-completions-nostream",
            "anthropic", "anthropic-nostream"})
    void errorObjectIsErrorInStream(String name) {
        RequestRecord r = send(api(name), Map.of(FaultKind.HEADER, "error_event"), spec());
        assertNotNull(r.failure(), name);
        assertEquals(FailureKind.ERROR_IN_STREAM, r.failure().kind(), () -> name + ": " + r.failure());
    }

    /** A 1 MiB event (well under the 16 MiB limit) is taken whole: the record is the clean request's. */
    @ParameterizedTest
    @ValueSource(strings = {"openai", "openai-nostream", "openai-completions", "openai-completions-nostream",
            "anthropic", "anthropic-nostream"})
    void oversizedEventIsTheCleanResponse(String name) {
        RequestRecord clean = send(api(name), Map.of(), spec());
        RequestRecord big = send(api(name), Map.of(FaultKind.HEADER, "oversized_event"), spec());
        assertNull(big.failure(), () -> name + ": " + big.failure());
        assertEquals(clean.generatedText(), big.generatedText(), name);
        assertEquals(MAX_TOKENS, big.usageCompletionTokens(), "max_tokens is honoured");
        assertEquals(clean.dataEventCount(), big.dataEventCount(), name);
        assertEquals(clean.finishReason(), big.finishReason(), name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"openai", "openai-completions", "anthropic"})
    void missingEndEventAfterTheFinishIsASuccessTagged(String name) {
        RequestRecord r = send(api(name), Map.of(FaultKind.HEADER, "missing_done"), spec());
        assertNull(r.failure(), () -> name + ": " + r.failure());
        assertTrue(r.tags().endMarkerMissing(), name);
        assertEquals(name.equals("anthropic") ? "max_tokens" : "length", r.finishReason());
        assertEquals(MAX_TOKENS, r.usageCompletionTokens());
        assertEquals(MAX_TOKENS, r.generatedText().trim().split(" +").length, r.generatedText());
    }

    @ParameterizedTest
    @ValueSource(strings = {"openai", "openai-nostream", "anthropic", "anthropic-nostream"})
    void httpErrorIsHttpStatus(String name) {
        RequestRecord r = send(api(name), Map.of(FaultKind.HEADER, "http_503"), spec());
        assertEquals(FailureKind.HTTP_STATUS, r.failure().kind());
        assertEquals(503, r.failure().code());
    }

    @Test
    void embeddingsBatchHasLatencyAndInputTokensButNoTtft() {
        List<String> batch = List.of("the first input text", "a second one", "and a third input");
        EmbeddingsApi api = new EmbeddingsApi(s -> batch);
        RequestRecord r = send(api, Map.of(), new RequestSpec(3, batch.get(0), 12, RequestSpec.NO_MAX_TOKENS));
        assertNull(r.failure(), () -> String.valueOf(r.failure()));
        assertEquals(RequestRecord.NEVER, r.ttftNanos());
        assertTrue(r.e2eNanos() > 0);
        assertNotNull(r.usagePromptTokens());
        assertTrue(r.usagePromptTokens() >= batch.size(), "usage.prompt_tokens of the batch");
        assertEquals("", r.generatedText());
    }

    @ParameterizedTest
    @CsvSource({"malformed_event,MALFORMED_EVENT", "error_event,ERROR_IN_STREAM", "http_503,HTTP_STATUS",
            "drop_mid_stream,CONNECTION_CLOSED", "reset,CONNECTION_CLOSED"})
    void embeddingsFaultsAreRecordedNotThrown(String fault, FailureKind kind) {
        EmbeddingsApi api = new EmbeddingsApi(s -> List.of("one input", "and another"));
        RequestRecord r = send(api, Map.of(FaultKind.HEADER, fault), new RequestSpec(0, "one input", 4,
                RequestSpec.NO_MAX_TOKENS));
        assertNotNull(r.failure(), fault);
        assertEquals(kind, r.failure().kind(), () -> fault + ": " + r.failure());
        assertNull(r.usagePromptTokens(), "nothing counted from a failed response");
    }

    @Test
    void embeddingsErrorIsRecorded() {
        // the simulator refuses an empty input string with a 400
        EmbeddingsApi api = new EmbeddingsApi(s -> List.of(""));
        RequestRecord r = send(api, Map.of(), new RequestSpec(0, "x", 1, RequestSpec.NO_MAX_TOKENS));
        assertEquals(FailureKind.HTTP_STATUS, r.failure().kind());
        assertEquals(400, r.failure().code());
    }
}

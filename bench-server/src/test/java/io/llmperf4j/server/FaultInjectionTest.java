package io.llmperf4j.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.SocketException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.llmperf4j.server.TestClient.chatBody;
import static io.llmperf4j.server.TestClient.completionBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The exact wire behaviour of every fault kind, forced by header or chosen by a seeded plan. */
class FaultInjectionTest {

    private static final Duration TTFT = Duration.ofMillis(5);
    private static final Duration ITL = Duration.ofMillis(1);
    private static final Duration STALL = Duration.ofMillis(150);
    private static final String HEADER = FaultKind.HEADER;
    private static final String USAGE = "\"stream_options\":{\"include_usage\":true}";

    private static final List<RequestTiming> timings = new CopyOnWriteArrayList<>();
    private static SimulatedServer server;
    private static TestClient client;

    @BeforeAll
    static void start() {
        server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(TTFT).interTokenDelay(ITL).timingListener(timings::add)
                .faultPlan(FaultPlan.none().withStallDuration(STALL))
                .build());
        client = new TestClient(server);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void httpStatusFaultsAreOpenAiErrorsAndKeepTheConnection() throws Exception {
        Map<FaultKind, String> types = Map.of(FaultKind.HTTP_400, "invalid_request_error",
                FaultKind.HTTP_401, "authentication_error", FaultKind.HTTP_403, "permission_error",
                FaultKind.HTTP_404, "invalid_request_error", FaultKind.HTTP_429, "rate_limit_error",
                FaultKind.HTTP_500, "server_error", FaultKind.HTTP_503, "server_error");
        for (Map.Entry<FaultKind, String> e : types.entrySet()) {
            FaultKind kind = e.getKey();
            HttpResponse<String> response = client.post("/chat/completions", chatBody("x", true, 5, ""),
                    HEADER, kind.headerValue());
            assertEquals(kind.httpStatus(), response.statusCode(), kind.toString());
            assertTrue(response.headers().firstValue("content-type").orElse("").startsWith("application/json"));
            JsonNode error = TestClient.JSON.readTree(response.body()).get("error");
            assertEquals(e.getValue(), error.get("type").asText(), kind.toString());
            assertEquals(kind.httpStatus(), error.get("code").asInt());
            assertTrue(error.get("param").isNull());
            assertEquals(FaultResponses.message(kind), error.get("message").asText());
            assertEquals(kind == FaultKind.HTTP_429 ? "1" : null,
                    response.headers().firstValue("retry-after").orElse(null), kind.toString());
        }
        HttpResponse<String> completions = client.post("/completions", completionBody("x", false, 5, ""),
                HEADER, "http_503");
        assertEquals(503, completions.statusCode());
        // the connection stays usable after an error
        assertEquals(200, client.post("/chat/completions", chatBody("after", false, 2, "")).statusCode());
    }

    @Test
    void anthropicHttpFaultsUseAnthropicErrors() throws Exception {
        HttpResponse<String> response = client.post("/messages", AnthropicMessagesTest.messagesBody("x", true, 5),
                HEADER, "http_429");
        assertEquals(429, response.statusCode());
        assertEquals("1", response.headers().firstValue("retry-after").orElseThrow());
        JsonNode body = TestClient.JSON.readTree(response.body());
        assertEquals("error", body.get("type").asText());
        assertEquals("rate_limit_error", body.get("error").get("type").asText());
        HttpResponse<String> overloaded = client.post("/messages", AnthropicMessagesTest.messagesBody("x", false, 5),
                HEADER, "http_503");
        assertEquals("api_error", TestClient.JSON.readTree(overloaded.body()).get("error").get("type").asText());
    }

    @Test
    void errorEventIsTheFirstAndOnlyEventThenDone() throws Exception {
        TestClient.Streamed response = client.stream("/chat/completions", chatBody("err", true, 5, USAGE),
                HEADER, "error_event");
        assertEquals(200, response.status());
        assertTrue(response.contentType().startsWith("text/event-stream"));
        assertEquals(2, response.events().size(), response.events().toString());
        JsonNode event = response.events().get(0).json();
        assertFalse(event.has("choices"));
        JsonNode error = event.get("error");
        assertEquals(ResponseEncoder.ERROR_EVENT_MESSAGE, error.get("message").asText());
        assertEquals("server_error", error.get("type").asText());
        assertEquals(500, error.get("code").asInt());
        assertTrue(response.events().get(1).isDone());
        assertTrue(response.events().get(0).arrivalNanos() - response.sentNanos() >= TTFT.toNanos(),
                "sent when the first content was due");

        HttpResponse<String> whole = client.post("/completions", completionBody("err", false, 5, ""),
                HEADER, "error_event");
        assertEquals(200, whole.statusCode());
        JsonNode body = TestClient.JSON.readTree(whole.body());
        assertFalse(body.has("choices"));
        assertEquals(500, body.get("error").get("code").asInt());
    }

    @Test
    void resetEndsTheConnectionBeforeAnyByte() throws Exception {
        RawExchange exchange = RawExchange.post(server.port(), "/v1/chat/completions",
                chatBody("reset", true, 5, ""), HEADER + ": reset");
        assertEquals(0, exchange.bytes().length);
        assertInstanceOf(SocketException.class, exchange.failure());
        assertTrue(exchange.failure().getMessage().toLowerCase().contains("reset"), exchange.failure().getMessage());
        assertThrows(IOException.class, () -> client.post("/completions", completionBody("r", false, 3, ""),
                HEADER, "reset"));
    }

    @Test
    void dropMidStreamClosesAfterTheFaultChunk() throws Exception {
        // 10 chunks: the fault chunk is 10 / 2 = 5, so chunks 0..5 (6 events) arrive, then the connection closes
        RawExchange exchange = RawExchange.post(server.port(), "/v1/chat/completions",
                chatBody("drop", true, 10, USAGE), HEADER + ": drop_mid_stream");
        assertEquals(200, exchange.status());
        assertNull(exchange.failure(), "closed with a FIN");
        assertFalse(exchange.chunkedTerminated(), "the chunked body never ends");
        List<String> events = events(exchange.payload());
        assertEquals(1 + 6, events.size(), events.toString());
        assertTrue(events.get(0).contains("\"role\":\"assistant\""));
        for (String event : events) assertTrue(event.contains("\"finish_reason\":null"), event);
        assertFalse(exchange.payload().contains("[DONE]"));
        Exception clientSide = assertThrows(Exception.class, () -> client.stream("/chat/completions",
                chatBody("drop", true, 10, ""), HEADER, "drop_mid_stream"));
        assertTrue(clientSide instanceof IOException || clientSide.getCause() instanceof IOException,
                clientSide.toString());

        RawExchange whole = RawExchange.post(server.port(), "/v1/completions", completionBody("drop", false, 4, ""),
                HEADER + ": drop_mid_stream");
        assertEquals(0, whole.bytes().length, "non-streaming: closed without a byte");
        assertNull(whole.failure());
    }

    @Test
    void malformedEventSitsInAnOtherwiseCompleteStream() throws Exception {
        String body = chatBody("malformed", true, 10, "");
        TestClient.Streamed response = client.stream("/chat/completions", body, HEADER, "malformed_event");
        List<TestClient.Event> events = response.events();
        assertEquals(1 + 1 + 10 + 1 + 1, events.size(), "role, 10 content, one malformed, finish, [DONE]");
        int malformed = -1;
        for (int i = 0; i < events.size(); i++) {
            if (!events.get(i).isDone() && !parses(events.get(i).data())) {
                assertEquals(-1, malformed, "only one malformed event");
                malformed = i;
            }
        }
        assertEquals(1 + 5, malformed, "right before the fault chunk (10 / 2 = 5)");
        String line = events.get(malformed).data();
        assertTrue(line.matches("\\{\"id\":\"chatcmpl-\\d+\",\"object\":\"chat.completion.chunk\","
                + "\"choices\":\\[\\{\"index\":0,\"delta\":\\{\"content\":\""), line);
        assertTrue(events.get(events.size() - 1).isDone());
        assertEquals(text(client.stream("/chat/completions", body)), textOfParsable(response),
                "every content chunk is still there");

        HttpResponse<String> whole = client.post("/completions", completionBody("m", false, 6, ""),
                HEADER, "malformed_event");
        assertEquals(200, whole.statusCode());
        assertEquals(Integer.toString(whole.body().length()), whole.headers().firstValue("content-length")
                .orElseThrow(), "the Content-Length matches the cut body");
        assertTrue(whole.body().startsWith("{\"id\":\"cmpl-"), whole.body());
        assertFalse(parses(whole.body()));
    }

    @Test
    void missingDoneEndsTheResponseCleanlyWithoutDone() throws Exception {
        RawExchange exchange = RawExchange.post(server.port(), "/v1/completions",
                completionBody("nodone", true, 4, USAGE), HEADER + ": missing_done");
        assertNull(exchange.failure());
        assertTrue(exchange.chunkedTerminated(), "the HTTP response ends properly");
        List<String> events = events(exchange.payload());
        assertEquals(4 + 1 + 1, events.size(), "content, finish, usage; no [DONE]");
        assertTrue(events.get(4).contains("\"finish_reason\":\"length\""));
        assertTrue(events.get(5).contains("\"usage\""));
        assertFalse(exchange.payload().contains("[DONE]"));

        HttpResponse<String> notForStreams = client.post("/completions", completionBody("x", false, 4, ""),
                HEADER, "missing_done");
        assertEquals(400, notForStreams.statusCode());
        assertEquals("X-Sim-Fault (missing_done) applies only to streaming requests.",
                TestClient.JSON.readTree(notForStreams.body()).get("error").get("message").asText());
    }

    @Test
    void stallStopsTheStreamThenContinues() throws Exception {
        timings.clear();
        // 6 chunks: the fault chunk is 3, due at ttft + 3 * itl + stall
        TestClient.Streamed response = client.stream("/chat/completions", chatBody("stall", true, 6, ""),
                HEADER, "stall");
        assertEquals(1 + 6 + 1 + 1, response.events().size());
        for (int k = 0; k < 6; k++) {
            long elapsed = response.events().get(1 + k).arrivalNanos() - response.sentNanos();
            long due = TTFT.toNanos() + k * ITL.toNanos() + (k >= 3 ? STALL.toNanos() : 0);
            assertTrue(elapsed >= due, "chunk " + k + " after " + elapsed + " ns < " + due);
        }
        assertEquals(text(client.stream("/chat/completions", chatBody("stall", true, 6, ""))), text(response));

        long sent = System.nanoTime();
        HttpResponse<String> whole = client.post("/completions", completionBody("s", false, 3, ""), HEADER, "stall");
        assertEquals(200, whole.statusCode());
        assertTrue(System.nanoTime() - sent >= TTFT.toNanos() + 2 * ITL.toNanos() + STALL.toNanos());
        awaitTrue(() -> timings.stream().filter(t -> t.fault() == FaultKind.STALL).count() == 2);
    }

    @Test
    void oversizedEventIsPaddedOutsideTheTextAndKeepsWithinMaxTokens() throws Exception {
        int padding = FaultPlan.DEFAULT_OVERSIZED_EVENT_BYTES;
        TestClient.Streamed response = client.stream("/chat/completions", chatBody("big", true, 4, USAGE),
                HEADER, "oversized_event");
        List<TestClient.Event> events = response.events();
        assertEquals(1 + 4 + 1 + 1 + 1, events.size());
        TestClient.Event big = events.get(1 + 2); // the fault chunk: 4 / 2 = 2
        assertTrue(big.data().length() > padding, big.data().length() + " bytes");
        assertEquals(" ".repeat(padding), big.json().get(ResponseEncoder.PADDING_FIELD).asText());
        TestClient.Streamed clean = client.stream("/chat/completions", chatBody("big", true, 4, USAGE));
        assertEquals(text(clean), text(response), "the text is the clean response's");
        JsonNode usage = events.get(events.size() - 2).json().get("usage");
        assertEquals(4, usage.get("completion_tokens").asInt(), "max_tokens is honoured");

        JsonNode whole = client.postJson("/completions", completionBody("big", false, 3, ""));
        HttpResponse<String> padded = client.post("/completions", completionBody("big", false, 3, ""),
                HEADER, "oversized_event");
        assertTrue(padded.body().length() > padding, padded.body().length() + " bytes");
        JsonNode paddedJson = TestClient.JSON.readTree(padded.body());
        assertEquals(whole.get("choices").get(0).get("text").asText(),
                paddedJson.get("choices").get(0).get("text").asText());
        assertEquals(3, paddedJson.get("usage").get("completion_tokens").asInt());

        TestClient.Lines anthropic = client.lines("/messages", AnthropicMessagesTest.messagesBody("big", true, 4),
                HEADER, "oversized_event");
        long paddedDeltas = anthropic.texts().stream().filter(l -> l.startsWith("data: ") && l.length() > padding)
                .filter(l -> l.contains("\"content_block_delta\"")).count();
        assertEquals(1, paddedDeltas, "one content_block_delta carries the padding");
        assertTrue(AnthropicMessagesTest.eventNames(anthropic).contains("message_stop"));
    }

    @Test
    void anthropicStreamsFailInTheirOwnFormat() throws Exception {
        TestClient.Lines error = client.lines("/messages", AnthropicMessagesTest.messagesBody("e", true, 5),
                HEADER, "error_event");
        assertEquals(List.of("event: error", "data: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\""
                + ResponseEncoder.ERROR_EVENT_MESSAGE + "\"}}", ""), error.texts());

        TestClient.Lines noStop = client.lines("/messages", AnthropicMessagesTest.messagesBody("e", true, 5),
                HEADER, "missing_done");
        List<String> names = AnthropicMessagesTest.eventNames(noStop);
        assertEquals("message_delta", names.get(names.size() - 1));
        assertFalse(names.contains("message_stop"));

        TestClient.Lines malformed = client.lines("/messages", AnthropicMessagesTest.messagesBody("e", true, 4),
                HEADER, "malformed_event");
        long bad = malformed.texts().stream().filter(l -> l.startsWith("data: "))
                .filter(l -> !parses(l.substring(6))).count();
        assertEquals(1, bad);
        assertTrue(AnthropicMessagesTest.eventNames(malformed).contains("message_stop"));
    }

    @Test
    void invalidHeaderValuesAre400() throws Exception {
        HttpResponse<String> response = client.post("/chat/completions", chatBody("x", true, 2, ""), HEADER, "boom");
        assertEquals(400, response.statusCode());
        assertTrue(TestClient.JSON.readTree(response.body()).get("error").get("message").asText()
                .startsWith("X-Sim-Fault (boom) must be one of none, http_400"));
    }

    @Test
    void aSeededPlanIsDeterministicByArrivalOrderAndItsCountsReconcile() throws Exception {
        Map<FaultKind, Double> weights = new EnumMap<>(FaultKind.class);
        for (FaultKind kind : List.of(FaultKind.HTTP_429, FaultKind.HTTP_500, FaultKind.ERROR_EVENT, FaultKind.RESET,
                FaultKind.DROP_MID_STREAM, FaultKind.MALFORMED_EVENT, FaultKind.MISSING_DONE)) {
            weights.put(kind, 1.0);
        }
        FaultPlan plan = FaultPlan.random(0.6, weights, 1234);
        int requests = 40;
        try (SimulatedServer planned = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ZERO).interTokenDelay(Duration.ZERO).faultPlan(plan).build())) {
            List<FaultKind> observed = new ArrayList<>();
            EnumMap<FaultKind, Long> tally = new EnumMap<>(FaultKind.class);
            for (int i = 0; i < requests; i++) {
                if (i == 10) { // a forced request takes no arrival index
                    RawExchange forced = RawExchange.post(planned.port(), "/v1/completions",
                            completionBody("forced", true, 4, ""), HEADER + ": http_404");
                    assertEquals(404, forced.status());
                    tally.merge(FaultKind.HTTP_404, 1L, Long::sum);
                }
                FaultKind kind = classify(RawExchange.post(planned.port(), "/v1/completions",
                        completionBody("p" + i, true, 4, ""), new String[0]));
                observed.add(kind);
                tally.merge(kind, 1L, Long::sum);
            }
            List<FaultKind> expected = new ArrayList<>();
            for (int i = 0; i < requests; i++) expected.add(plan.choose(i, true));
            assertEquals(expected, observed, "request i gets plan.choose(i)");
            assertTrue(observed.stream().distinct().count() >= 5, "a varied mix: " + observed);

            FaultCounts counts = planned.faultCounts();
            assertEquals(requests + 1, counts.total());
            for (FaultKind kind : FaultKind.values()) {
                assertEquals(tally.getOrDefault(kind, 0L), counts.count(kind), kind.toString());
            }
            assertEquals(counts.total() - counts.count(FaultKind.NONE), counts.injected());
        }
    }

    @Test
    void requestHashSelectionGivesTheSameRequestTheSameFault() throws Exception {
        FaultPlan plan = FaultPlan.sequence(FaultKind.NONE, FaultKind.HTTP_500)
                .withSelection(FaultPlan.Selection.REQUEST_HASH).withSeed(5);
        try (SimulatedServer hashed = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ZERO).interTokenDelay(Duration.ZERO).faultPlan(plan).build())) {
            TestClient hashedClient = new TestClient(hashed);
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                String body = completionBody("q" + i, false, 2, "");
                int status = hashedClient.post("/completions", body).statusCode();
                assertEquals(status, hashedClient.post("/completions", body).statusCode(), "same body, same fault");
                long hash = Hashing.fnv("/v1/completions",
                        io.netty.buffer.Unpooled.copiedBuffer(body, java.nio.charset.StandardCharsets.UTF_8));
                assertEquals(plan.choose(hash, false) == FaultKind.NONE ? 200 : 500, status);
                statuses.add(status);
            }
            assertTrue(statuses.contains(200) && statuses.contains(500), statuses.toString());
        }
    }

    /** What a raw streaming exchange shows, as the fault kind that explains it. */
    private static FaultKind classify(RawExchange exchange) {
        if (exchange.bytes().length == 0) {
            assertNotNull(exchange.failure(), "only a reset ends without a byte here");
            return FaultKind.RESET;
        }
        switch (exchange.status()) {
            case 429: return FaultKind.HTTP_429;
            case 500: return FaultKind.HTTP_500;
            case 200: break;
            default: throw new AssertionError("unexpected status " + exchange.status());
        }
        if (!exchange.chunkedTerminated()) return FaultKind.DROP_MID_STREAM;
        String payload = exchange.payload();
        if (payload.startsWith("data: {\"error\"")) return FaultKind.ERROR_EVENT;
        if (events(payload).stream().anyMatch(e -> !e.equals("data: [DONE]") && !parses(e.substring(6)))) {
            return FaultKind.MALFORMED_EVENT;
        }
        if (!payload.endsWith("data: [DONE]\n\n")) return FaultKind.MISSING_DONE;
        return FaultKind.NONE;
    }

    static List<String> events(String payload) {
        List<String> events = new ArrayList<>();
        for (String event : payload.split("\n\n")) {
            if (!event.isEmpty() && !event.equals("data: [DONE]")) events.add(event);
        }
        return events;
    }

    static boolean parses(String json) {
        try {
            TestClient.JSON.readTree(json);
            return true;
        } catch (JsonProcessingException e) {
            return false;
        }
    }

    private static String text(TestClient.Streamed response) {
        StringBuilder text = new StringBuilder();
        for (JsonNode chunk : response.jsonEvents()) {
            JsonNode content = chunk.path("choices").path(0).path("delta").path("content");
            if (content.isTextual()) text.append(content.asText());
        }
        return text.toString();
    }

    private static String textOfParsable(TestClient.Streamed response) {
        StringBuilder text = new StringBuilder();
        for (TestClient.Event event : response.events()) {
            if (event.isDone() || !parses(event.data())) continue;
            JsonNode content = event.json().path("choices").path(0).path("delta").path("content");
            if (content.isTextual()) text.append(content.asText());
        }
        return text.toString();
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadlineNanos = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadlineNanos) throw new AssertionError("condition not met within 10 s");
            Thread.sleep(2);
        }
    }
}

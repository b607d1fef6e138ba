package io.llmperf4j.engine.client;

import io.llmperf4j.engine.client.impl.Exchange;
import io.llmperf4j.model.ErrorBodies;
import io.llmperf4j.engine.testserver.FaultServer;
import io.llmperf4j.engine.testserver.Streams;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.netty.channel.epoll.Epoll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import io.llmperf4j.engine.protocol.ChatCompletionChunkParser;

import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NettyLlmClientTest {

    static final String KEY = "sk-test-SECRET-0123456789";

    private FaultServer server;
    private final List<NettyLlmClient> clients = new ArrayList<>();

    @BeforeEach
    void startServer() throws IOException {
        server = FaultServer.start();
    }

    @AfterEach
    void stop() throws IOException {
        clients.forEach(NettyLlmClient::close);
        server.close();
    }

    private NettyLlmClient client(UnaryOperator<ClientConfig.Builder> options) {
        ClientConfig.Builder b = ClientConfig.builder(EndpointUrls.chatCompletions(server.baseUrl()), "test-model")
                .apiKey(Secret.of(KEY)).ioThreads(2).workerThreads(2);
        NettyLlmClient c = new NettyLlmClient(options.apply(b).build());
        clients.add(c);
        return c;
    }

    private NettyLlmClient client() {
        return client(b -> b);
    }

    private static RequestSpec spec(String scenario) {
        return new RequestSpec(3, scenario, 550, 150);
    }

    private static RequestRecord send(NettyLlmClient client, String scenario) {
        return client.send(spec(scenario)).completion().join();
    }

    private static void assertStandardSuccess(RequestRecord r) {
        assertNull(r.failure(), () -> "failure: " + r.failure());
        assertEquals("Hello world!", r.generatedText());
        assertEquals(5, r.dataEventCount(), "role + 3 content + finish; not the usage-only chunk, not [DONE]");
        assertEquals(3, r.contentEventNanos().length);
        assertArrayEquals(new int[]{5, 6, 1}, r.contentEventChars(), "UTF-16 length of each content event");
        assertEquals(0, r.contentEventTokens().length, "the runner counts tokens per event");
        assertEquals(RequestRecord.NEVER, r.firstReasoningNanos());
        assertEquals("stop", r.finishReason());
        assertEquals(12, r.usagePromptTokens());
        assertEquals(3, r.usageCompletionTokens());
        assertEquals(Streams.RESPONSE_ID, r.serverResponseId());
        assertTrue(r.ttftNanos() > 0);
        assertEquals(r.ttftNanos(), r.contentEventNanos()[0]);
        assertEquals(r.lastContentNanos(), r.contentEventNanos()[2]);
        assertTrue(r.contentEventNanos()[0] <= r.contentEventNanos()[1]
                && r.contentEventNanos()[1] <= r.contentEventNanos()[2]);
        assertTrue(r.e2eNanos() >= r.lastContentNanos());
        assertEquals(-1, r.outputTokens(), "the runner counts output tokens");
        assertEquals(3, r.promptIndex());
        assertEquals(550, r.numberInputTokens());
        assertEquals(150, r.maxTokens());
    }

    @ParameterizedTest
    @ValueSource(strings = {"ok", "ok-one-write", "ok-crlf", "ok-cr", "ok-bytewise", "until-close"})
    void standardStreamInEveryFramingGivesTheSameRecord(String scenario) {
        assertStandardSuccess(send(client(), scenario));
    }

    @Test
    void endActionRunsOnTheIoThreadBeforeTheRecordCompletes() throws Exception {
        NettyLlmClient c = client();
        AtomicReference<String> endThread = new AtomicReference<>();
        AtomicBoolean recordDoneAtEnd = new AtomicBoolean(true);
        CountDownLatch ended = new CountDownLatch(1);
        // set with the request, not after send returns: a fast answer could end it first (CI saw the action on main)
        RequestHandle handle = c.send(spec("ok"), () -> {
            endThread.set(Thread.currentThread().getName());
            recordDoneAtEnd.set(c.inFlight() == 0); // the client forgets a request when its record completes
            ended.countDown();
        });
        assertTrue(ended.await(10, TimeUnit.SECONDS));
        assertTrue(endThread.get().startsWith("llmperf4j-io"), endThread.get());
        assertFalse(recordDoneAtEnd.get(), "the end action runs before the record completes");
        assertTrue(handle.completion().join().succeeded());

        // once ended, an action runs at once on the calling thread; a second one while in flight is refused
        AtomicReference<String> late = new AtomicReference<>();
        handle.whenEnded(() -> late.set(Thread.currentThread().getName()));
        assertEquals(Thread.currentThread().getName(), late.get());
        RequestHandle hanging = c.send(spec("hang"));
        hanging.whenEnded(() -> { });
        assertThrows(IllegalStateException.class, () -> hanging.whenEnded(() -> { }));
        hanging.cancel();
        assertEquals(FailureKind.CANCELLED, hanging.completion().join().failure().kind());
    }

    @Test
    void requestOnTheWireHasTheHeadersAndBody() {
        long before = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
        RequestRecord r = send(client(), "ok");
        long after = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
        FaultServer.Received got = server.received().get(0);
        assertEquals("POST", got.method());
        assertEquals("/v1/chat/completions", got.target());
        assertEquals("127.0.0.1:" + server.port(), got.headers().get("host"));
        assertEquals("Bearer " + KEY, got.headers().get("authorization"));
        assertEquals("application/json", got.headers().get("content-type"));
        assertEquals("text/event-stream", got.headers().get("accept"));
        assertEquals(r.clientRequestId(), got.headers().get("x-request-id"));
        assertEquals(String.valueOf(got.body().length), got.headers().get("content-length"));
        assertEquals("{\"model\":\"test-model\",\"messages\":[{\"role\":\"system\",\"content\":\"\"},"
                + "{\"role\":\"user\",\"content\":\"ok\"}],\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                + "\"max_tokens\":150}", got.bodyText());
        assertTrue(r.startEpochMicros() >= before && r.startEpochMicros() <= after);
    }

    @Test
    void requestIdsAreUniqueAndExtraHeadersAndParamsAreSent() {
        NettyLlmClient c = client(b -> b.includeUsage(false)
                .additionalSamplingParams(java.util.Map.of("temperature", 0))
                .extraHeaders(java.util.Map.of("X-Tenant", "bench")));
        RequestRecord a = send(c, "ok");
        RequestRecord b = send(c, "ok");
        assertNotEquals(a.clientRequestId(), b.clientRequestId());
        assertTrue(a.clientRequestId().startsWith("llmperf4j-"));
        FaultServer.Received got = server.received().get(1);
        assertEquals("bench", got.headers().get("x-tenant"));
        assertEquals("{\"model\":\"test-model\",\"messages\":[{\"role\":\"system\",\"content\":\"\"},"
                + "{\"role\":\"user\",\"content\":\"ok\"}],\"stream\":true,\"max_tokens\":150,\"temperature\":0}",
                got.bodyText());
        assertEquals(12, b.usagePromptTokens(), "usage is read whenever the server sends it");
    }

    @Test
    void noAuthorizationHeaderWithoutAKey() {
        NettyLlmClient c = client(b -> b.apiKey(Secret.none()));
        assertNull(send(c, "ok").failure());
        assertNull(server.received().get(0).headers().get("authorization"));
    }

    @Test
    void bigEventOf200KilobytesSucceeds() {
        RequestRecord r = send(client(), "big");
        assertNull(r.failure(), () -> "failure: " + r.failure());
        assertEquals(FaultServer.bigContent(), r.generatedText());
        assertEquals(3, r.dataEventCount());
        assertEquals(1, r.contentEventNanos().length);
    }

    @Test
    void eventOverTheLimitFailsNamingBothNumbers() {
        RequestRecord r = send(client(b -> b.maxEventBytes(100_000)), "big");
        assertEquals(FailureKind.CLIENT_ERROR, r.failure().kind());
        assertEquals(-1, r.failure().code());
        assertTrue(r.failure().message().matches(
                "SSE event \\(\\d+ bytes so far\\) exceeds the allowed maximum \\(100000 bytes\\); raise maxEventBytes"),
                r.failure().message());
    }

    @Test
    void http401KeepsTheBodyButRedactsTheEchoedKey() {
        RequestRecord r = send(client(), "status-401");
        assertEquals(new Failure(FailureKind.HTTP_STATUS, 401, "{\"error\":{\"message\":\"Incorrect API key provided: "
                + "Bearer [redacted]\",\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}"), r.failure());
        assertEquals(-1, r.ttftNanos());
        assertTrue(r.e2eNanos() > 0);
    }

    @Test
    void http429And500() {
        NettyLlmClient c = client();
        assertEquals(new Failure(FailureKind.HTTP_STATUS, 429, "rate limit exceeded, retry later [Retry-After: 7]"),
                send(c, "status-429").failure());
        assertEquals(new Failure(FailureKind.HTTP_STATUS, 500, "Internal Server Error"),
                send(c, "status-500").failure());
    }

    @Test
    void errorObjectInTheStreamKeepsDataSoFar() {
        RequestRecord r = send(client(), "stream-error");
        assertEquals(new Failure(FailureKind.ERROR_IN_STREAM, 503, "model overloaded"), r.failure());
        assertEquals("Hel", r.generatedText());
        assertTrue(r.ttftNanos() > 0, "content arrived before the error");
        assertEquals(3, r.dataEventCount(), "role, content and the error event, as llmperf counts them");
        assertTrue(r.e2eNanos() >= r.ttftNanos());
    }

    @Test
    void theResponseIdComesFromTheBodyEvenWithAnXRequestIdHeader() {
        assertEquals(Streams.RESPONSE_ID, send(client(), "stream-error").serverResponseId());
    }

    @Test
    void anErrorBeforeAnyIdFallsBackToTheResponsesXRequestIdHeader() {
        RequestRecord r = send(client(), "stream-error-first");
        assertEquals(new Failure(FailureKind.ERROR_IN_STREAM, 503, "model overloaded"), r.failure());
        assertEquals(FaultServer.HEADER_REQUEST_ID, r.serverResponseId());
    }

    @Test
    void errorObjectWithANonNumericCode() {
        assertEquals(new Failure(FailureKind.ERROR_IN_STREAM, -1, "internal failure"),
                send(client(), "stream-error-string-code").failure());
    }

    @Test
    void jsonErrorBodyWithStatus200() {
        assertEquals(new Failure(FailureKind.ERROR_IN_STREAM, 400, "bad things"),
                send(client(), "json-error").failure());
    }

    @Test
    void aPageOfAnotherTypeIsNotAStreamAndSaysSo() {
        NettyLlmClient c = client();
        String page = "<html><body>Please log in to the proxy</body></html>";
        assertEquals(new Failure(FailureKind.CLIENT_ERROR, -1, "expected an event stream but got 'text/html; "
                + "charset=utf-8' (a proxy's or gateway's page? check the base URL): " + page),
                send(c, "html-200").failure());
        assertEquals(new Failure(FailureKind.CLIENT_ERROR, -1, "expected an event stream but got 'text/html' (a "
                + "proxy's or gateway's page? check the base URL): " + page),
                send(c, "html-200-until-close").failure());
        assertEquals(new Failure(FailureKind.CLIENT_ERROR, -1, "expected an event stream but got 'text/html' (a "
                + "proxy's or gateway's page? check the base URL) with an empty body"),
                send(c, "empty-200-html").failure());
        RequestRecord r = send(c, "html-200");
        assertEquals(0, r.dataEventCount());
        assertEquals(-1, r.ttftNanos());
    }

    /**
     * RFC 9457 problem details (application/problem+json): a non-2xx one is recorded as any error body is (whole, the
     * status its code), and its title and detail are what the server said; one under a 200 is not a stream, worded
     * with its title, detail and status instead of an excerpt of its JSON.
     */
    @Test
    void problemDetailsAreReadForTheirTitleAndDetail() {
        NettyLlmClient c = client();
        RequestRecord refused = send(c, "problem-403");
        assertEquals(new Failure(FailureKind.HTTP_STATUS, 403, FaultServer.PROBLEM_403), refused.failure());
        assertEquals("Forbidden: the key has no access to model test-model",
                ErrorBodies.serverMessage(refused.failure().message()), "what the console and pre-run check print");
        String problem = "Service Unavailable: upstream model is loading, retry in 30 s (status 503 in the body)";
        RequestRecord r = send(c, "problem-200");
        assertEquals(new Failure(FailureKind.CLIENT_ERROR, -1, "expected an event stream but got "
                + "'application/problem+json' (a proxy's or gateway's error? check the base URL): " + problem),
                r.failure());
        assertEquals(0, r.dataEventCount());
        assertEquals(-1, r.ttftNanos());
        assertEquals(new Failure(FailureKind.CLIENT_ERROR, -1, "expected an event stream but got "
                + "'application/json': " + problem), send(c, "problem-200-as-json").failure());
        assertEquals(new Failure(FailureKind.CLIENT_ERROR, -1, "expected an event stream but got 'text/html; "
                + "charset=utf-8' (a proxy's or gateway's page? check the base URL): <html><body>Please log in to the "
                + "proxy</body></html>"), send(c, "html-200").failure(), "a page that is no problem: its excerpt");
    }

    /**
     * Without streaming, a 200 problem (application/problem+json, or plain JSON shaped as one) is the same client
     * error as a stream's, with its title, detail and status, not a malformed body quoted; a body that is no problem
     * stays MALFORMED_EVENT.
     */
    @Test
    void aProblemUnderA200WithoutStreamingIsAClientErrorWithItsWords() {
        NettyLlmClient c = new NettyLlmClient(ClientConfig.builder(EndpointUrls.chatCompletions(server.baseUrl()),
                "test-model").apiKey(Secret.of(KEY)).ioThreads(2).workerThreads(2).build(), new OpenAiChatApi(false));
        clients.add(c);
        String problem = "Service Unavailable: upstream model is loading, retry in 30 s (status 503 in the body)";
        RequestRecord r = send(c, "problem-200");
        assertEquals(new Failure(FailureKind.CLIENT_ERROR, -1, "expected the API's response but got a problem in "
                + "'application/problem+json' (a proxy's or gateway's error? check the base URL): " + problem),
                r.failure());
        assertEquals(0, r.dataEventCount());
        assertEquals(-1, r.ttftNanos());
        assertEquals(new Failure(FailureKind.CLIENT_ERROR, -1, "expected the API's response but got a problem in "
                + "'application/json' (a proxy's or gateway's error? check the base URL): " + problem),
                send(c, "problem-200-as-json").failure());
        RequestRecord page = send(c, "html-200");
        assertEquals(FailureKind.MALFORMED_EVENT, page.failure().kind(), page.failure()::toString);
        assertTrue(page.failure().message().contains("Please log in to the proxy"), page.failure()::toString);
    }

    @ParameterizedTest
    @ValueSource(strings = {"ok-as-text-plain", "ok-without-content-type"})
    void aRealStreamUnderAnotherContentTypeIsStillMeasured(String scenario) {
        assertStandardSuccess(send(client(), scenario));
    }

    @Test
    void anOlderVllmErrorObjectIsAnErrorInTheStreamWithItsCode() {
        RequestRecord r = send(client(), "vllm-error");
        assertEquals(new Failure(FailureKind.ERROR_IN_STREAM, 500, "out of KV cache"), r.failure());
        assertEquals("Hel", r.generatedText(), "content before the error is kept");
        assertEquals(3, r.dataEventCount(), "role, content and the error event");
    }

    @Test
    void anEventNamedErrorIsAnErrorInTheStream() {
        NettyLlmClient c = client();
        RequestRecord r = send(c, "event-error");
        assertEquals(new Failure(FailureKind.ERROR_IN_STREAM, 503, "model overloaded"), r.failure());
        assertEquals("Hel", r.generatedText());
        assertEquals(3, r.dataEventCount());
        assertEquals(new Failure(FailureKind.ERROR_IN_STREAM, -1, "overloaded"),
                send(c, "event-error-wrapped").failure(), "a code that is not a number is none, as in an error member");
        assertEquals(new Failure(FailureKind.ERROR_IN_STREAM, -1, "upstream timed out"),
                send(c, "event-error-text").failure(), "data that is not JSON is the message");
    }

    @ParameterizedTest
    @ValueSource(strings = {"drop", "reset"})
    void connectionLostMidStreamKeepsPartialData(String scenario) {
        RequestRecord r = send(client(), scenario);
        assertEquals(FailureKind.CONNECTION_CLOSED, r.failure().kind());
        assertEquals(-1, r.failure().code());
        assertTrue(r.failure().message().contains("127.0.0.1:" + server.port()), r.failure().message());
        assertEquals("Hello", r.generatedText());
        assertEquals(2, r.dataEventCount());
        assertTrue(r.ttftNanos() > 0);
        String host = "127.0.0.1:" + server.port();
        assertEquals(scenario.equals("drop") ? "connection closed by " + host + " mid-stream after 2 events"
                : "connection reset by the server while streaming, after 2 events (" + host
                + ": Connection reset by peer)", r.failure().message(), "plain words: no native call, errno or state");
    }

    @Test
    void malformedEventIsCountedAndTheStreamGoesOn() {
        RequestRecord r = send(client(), "malformed");
        assertEquals(FailureKind.MALFORMED_EVENT, r.failure().kind());
        assertEquals(-1, r.failure().code());
        assertTrue(r.failure().message().startsWith("SSE data event #3 is malformed (invalid JSON: "),
                r.failure().message());
        assertTrue(r.failure().message().endsWith("): {\"choices\": [oops"), r.failure().message());
        assertEquals("Hello world", r.generatedText(), "events after the malformed one are still measured");
        assertEquals(5, r.dataEventCount());
        assertEquals("stop", r.finishReason());
    }

    @Test
    void aCleanEndWithoutDoneAfterTheFinishIsASuccessTaggedAsSuch() {
        RequestRecord r = send(client(), "no-done");
        assertNull(r.failure(), () -> String.valueOf(r.failure()));
        assertTrue(r.tags().endMarkerMissing());
        assertEquals("Hello", r.generatedText());
        assertEquals("length", r.finishReason());
        assertEquals(3, r.dataEventCount());
        assertFalse(send(client(), "ok").tags().endMarkerMissing());
    }

    @Test
    void aCleanEndWithoutDoneOrAFinishIsMissingDoneAndKeepsAllData() {
        RequestRecord r = send(client(), "no-done-no-finish");
        assertEquals(new Failure(FailureKind.MISSING_DONE, -1, "the stream ended without data: [DONE] after 2 events "
                + "and without a finish reason: the response may be cut short"), r.failure());
        assertFalse(r.tags().endMarkerMissing());
        assertEquals("Hello", r.generatedText());
        assertNull(r.finishReason());
        assertEquals(2, r.dataEventCount());
    }

    @Test
    void connectionRefusedNamesHostAndPortButNeverTheKey() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        ClientConfig config = ClientConfig.builder(
                        EndpointUrls.chatCompletions("http://127.0.0.1:" + port + "/v1"), "m")
                .apiKey(Secret.of(KEY)).build();
        try (NettyLlmClient c = new NettyLlmClient(config)) {
            RequestRecord r = c.send(spec("ok")).completion().join();
            assertEquals(FailureKind.CONNECT_FAILED, r.failure().kind());
            assertEquals(-1, r.failure().code());
            assertEquals("connection to 127.0.0.1:" + port + " failed: Connection refused", r.failure().message(),
                    "the operating system's words, not the native call's (finishConnect(..) failed with error(-111))");
            assertFalse(r.failure().message().contains(KEY));
            assertEquals(-1, r.ttftNanos());
            assertEquals(0, r.dataEventCount());
        }
    }

    @Test
    void idleTimeoutWhenNoResponseArrives() {
        RequestRecord r = send(client(b -> b.idleTimeout(Duration.ofMillis(200))), "hang");
        assertEquals(FailureKind.IDLE_TIMEOUT, r.failure().kind());
        assertEquals(-1, r.failure().code());
        assertTrue(r.failure().message().matches("no bytes from 127\\.0\\.0\\.1:" + server.port()
                + " for \\d+ ms \\(idle timeout 200 ms\\) while (waiting for the response|streaming, after 0 events)"),
                r.failure().message());
        assertTrue(r.e2eNanos() >= TimeUnit.MILLISECONDS.toNanos(200));
    }

    @Test
    void idleTimeoutKeepsContentReceivedBeforeIt() {
        // the server answers at once; 2 s only has to outlast scheduling delays on a loaded machine
        RequestRecord r = send(client(b -> b.idleTimeout(Duration.ofSeconds(2))), "content-then-hang");
        assertEquals(FailureKind.IDLE_TIMEOUT, r.failure().kind());
        assertEquals("Hello", r.generatedText());
        assertEquals(2, r.dataEventCount());
        assertTrue(r.ttftNanos() > 0);
    }

    @Test
    void cancelRecordsCancelledAndKeepsData() throws InterruptedException {
        NettyLlmClient c = client();
        RequestHandle handle = c.send(spec("content-then-hang"));
        awaitEvents((Exchange) handle, 2);
        handle.cancel();
        RequestRecord r = handle.completion().join();
        assertEquals(new Failure(FailureKind.CANCELLED, -1, "cancelled while in flight"), r.failure());
        assertEquals("Hello", r.generatedText());
        assertTrue(r.ttftNanos() > 0);
        handle.cancel(); // idempotent
        assertEquals(r, handle.completion().join());
    }

    @Test
    void cancelWhileWaitingForAConnectionNeverReachesTheServer() throws InterruptedException {
        NettyLlmClient c = client(b -> b.maxConnections(1));
        RequestHandle first = c.send(spec("hang"));
        awaitServerRequests(1);
        RequestHandle second = c.send(spec("ok"));
        second.cancel();
        RequestRecord r = second.completion().join();
        assertEquals(FailureKind.CANCELLED, r.failure().kind());
        assertEquals(0, r.dataEventCount());
        first.cancel();
        assertEquals(FailureKind.CANCELLED, first.completion().join().failure().kind());
        assertNull(send(c, "ok").failure(), "the pool slot is free again");
        assertEquals(List.of("hang", "ok"), server.received().stream().map(FaultServer.Received::prompt).toList());
    }

    @Test
    void keepAliveReusesOneConnectionForSequentialRequests() {
        NettyLlmClient c = client();
        for (int i = 0; i < 10; i++) {
            RequestRecord r = send(c, i % 2 == 0 ? "ok" : "status-429");
            assertEquals(i % 2 == 0 ? null : FailureKind.HTTP_STATUS, r.failure() == null ? null : r.failure().kind());
        }
        assertEquals(10, server.requestsReceived());
        assertEquals(1, server.acceptedConnections(), "complete keep-alive responses, 200 or not, keep the connection");
        assertEquals(1, c.connectionsOpened());
    }

    @Test
    void connectionsThatFailedOrSaidCloseAreNotReused() {
        NettyLlmClient c = client();
        assertNull(send(c, "ok").failure());
        assertEquals(FailureKind.CONNECTION_CLOSED, send(c, "drop").failure().kind());
        assertNull(send(c, "ok").failure());
        assertEquals(FailureKind.HTTP_STATUS, send(c, "status-500").failure().kind()); // Connection: close
        assertNull(send(c, "ok").failure());
        assertEquals(5, server.requestsReceived());
        assertEquals(3, server.acceptedConnections());
    }

    @Test
    void concurrentRequestsAreBoundedByMaxConnections() {
        NettyLlmClient c = client(b -> b.maxConnections(3));
        List<RequestHandle> handles = new ArrayList<>();
        for (int i = 0; i < 12; i++) handles.add(c.send(spec("ok")));
        for (RequestHandle h : handles) assertNull(h.completion().join().failure());
        assertEquals(12, server.requestsReceived());
        assertTrue(server.acceptedConnections() <= 3, "accepted " + server.acceptedConnections());
    }

    @Test
    void nioTransportWorksToo() {
        NettyLlmClient c = client(b -> b.preferNativeTransport(false));
        assertEquals("nio", c.transportName());
        assertStandardSuccess(send(c, "ok-bytewise"));
    }

    @Test
    void epollIsUsedWhenAvailable() {
        assertEquals(Epoll.isAvailable() ? "epoll" : "nio", client().transportName());
    }

    @Test
    void theKeyNeverAppearsInAnyFailureMessage() {
        NettyLlmClient c = client(b -> b.maxEventBytes(100_000).idleTimeout(Duration.ofMillis(300)));
        List<String> scenarios = new ArrayList<>(FaultServer.scenarios());
        scenarios.add("content-then-hang");
        scenarios.add("unknown-scenario");
        for (String s : scenarios) {
            RequestRecord r = send(c, s);
            if (r.failure() != null) {
                assertFalse(r.failure().message().contains(KEY), s + ": " + r.failure().message());
                assertFalse(r.failure().message().contains("SECRET"), s + ": " + r.failure().message());
            }
            assertFalse(r.toString().contains(KEY), s);
        }
    }

    @Test
    void sendAfterCloseIsRefusedAndCloseCancelsInFlight() {
        NettyLlmClient c = client();
        RequestHandle h = c.send(spec("hang"));
        c.close();
        assertEquals(FailureKind.CANCELLED, h.completion().join().failure().kind());
        assertEquals(0, c.inFlight());
        assertThrows(IllegalStateException.class, () -> c.send(spec("ok")));
    }

    @Test
    void completionNeverRunsOnAnIoThread() {
        NettyLlmClient c = client();
        for (String s : List.of("ok", "status-429", "drop")) {
            String thread = c.send(spec(s)).completion().thenApply(r -> Thread.currentThread().getName()).join();
            assertFalse(thread.startsWith("llmperf4j-io"), thread);
        }
        RequestRecord r = send(c, "ok");
        assertNotNull(r);
    }

    private void awaitServerRequests(int requests) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (server.requestsReceived() < requests) {
            if (System.nanoTime() > deadline) throw new AssertionError("the server never got the requests");
            Thread.sleep(5);
        }
    }

    static void awaitEvents(Exchange exchange, int events) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (exchange.eventsDecoded() < events) {
            if (System.nanoTime() > deadline) throw new AssertionError("events never arrived");
            Thread.sleep(5);
        }
    }

    @Test
    void streamedEventsAreParsedOnTheIoThreadAJsonBodyOnAWorker() {
        Map<String, Set<String>> threads = new ConcurrentHashMap<>();
        ChatCompletionChunkParser real = new ChatCompletionChunkParser();
        ClientConfig config = ClientConfig.builder(EndpointUrls.chatCompletions(server.baseUrl()), "m").build();
        String[] scenario = new String[1];
        try (NettyLlmClient c = new NettyLlmClient(config, data -> {
            threads.computeIfAbsent(scenario[0], k -> ConcurrentHashMap.newKeySet())
                    .add(Thread.currentThread().getName());
            return real.parse(data);
        })) {
            for (String s : List.of("ok", "ok-bytewise", "big", "json-error")) {
                scenario[0] = s;
                c.send(spec(s)).completion().join();
            }
        }
        for (String s : List.of("ok", "ok-bytewise", "big")) {
            assertTrue(threads.get(s).stream().allMatch(t -> t.startsWith("llmperf4j-io")), s + ": " + threads);
        }
        assertTrue(threads.get("json-error").stream().allMatch(t -> t.startsWith("llmperf4j-worker")),
                threads::toString);
    }

    @Test
    void recordArraysAreCopies() {
        RequestRecord r = send(client(), "ok");
        long[] copy = r.contentEventNanos().clone();
        assertArrayEquals(copy, r.contentEventNanos());
    }
}

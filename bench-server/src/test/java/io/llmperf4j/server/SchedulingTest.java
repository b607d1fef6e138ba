package io.llmperf4j.server;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;

import static io.llmperf4j.server.TestClient.chatBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SchedulingTest {

    private static final Duration TTFT = Duration.ofMillis(30);
    private static final Duration ITL = Duration.ofMillis(5);

    private final List<RequestTiming> timings = new CopyOnWriteArrayList<>();

    private SimulatorConfig.Builder config() {
        return SimulatorConfig.builder().timeToFirstToken(TTFT).interTokenDelay(ITL).timingListener(timings::add);
    }

    @Test
    void requestsBeyondTheSlotsQueueAndTheirTtftIncludesTheWait() throws Exception {
        int maxTokens = 10;
        long generationNanos = TTFT.toNanos() + (maxTokens - 1) * ITL.toNanos();
        try (SimulatedServer server = SimulatedServer.start(config().maxConcurrentSequences(1).build())) {
            TestClient client = new TestClient(server);
            ExecutorService threads = Executors.newFixedThreadPool(2);
            try {
                Future<TestClient.Streamed> a = threads.submit(() ->
                        client.stream("/chat/completions", chatBody("a", true, maxTokens, "")));
                Future<TestClient.Streamed> b = threads.submit(() ->
                        client.stream("/chat/completions", chatBody("b", true, maxTokens, "")));
                TestClient.Streamed first = a.get();
                TestClient.Streamed second = b.get();
                if (firstContentNanos(second) < firstContentNanos(first)) {
                    TestClient.Streamed swap = first;
                    first = second;
                    second = swap;
                }
                long startNanos = Math.min(first.sentNanos(), second.sentNanos());
                long waitedNanos = firstContentNanos(second) - startNanos;
                assertTrue(waitedNanos >= generationNanos + TTFT.toNanos(),
                        "second's first token after " + waitedNanos + " ns; one generation + TTFT is "
                                + (generationNanos + TTFT.toNanos()));
                assertEquals(1 + maxTokens + 1, second.jsonEvents().size());
            } finally {
                threads.shutdownNow();
            }
            awaitTrue(() -> timings.size() == 2);
            // in the order the slot was granted: the first one reports after it freed the slot, on its own loop, so a
            // starved loop can report it after the second
            List<RequestTiming> granted = timings.stream()
                    .sorted(Comparator.comparingLong(RequestTiming::slotGrantedNanos)).toList();
            RequestTiming first = granted.get(0);
            RequestTiming second = granted.get(1);
            assertTrue(second.slotGrantedNanos() - first.lastContentFlushedNanos() >= 0, "FIFO: after the first");
            assertTrue(second.slotGrantedNanos() - second.arrivalNanos() > 0, "the second waited");
            assertEquals(second.slotGrantedNanos() + TTFT.toNanos(), second.firstContentDueNanos(),
                    "a queued request's TTFT runs from its grant");
        }
    }

    @Test
    void clientDisconnectFreesTheSlotAndStopsTheStream() throws Exception {
        try (SimulatedServer server = SimulatedServer.start(config().maxConcurrentSequences(1).build())) {
            try (Socket socket = new Socket("127.0.0.1", server.port())) {
                socket.setSoTimeout(10_000);
                sendRaw(socket, "/v1/chat/completions", chatBody("long", true, 1_000_000, ""), true);
                BufferedReader reader = new BufferedReader(
                        new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
                int contentEvents = 0;
                for (String line; contentEvents < 3 && (line = reader.readLine()) != null; ) {
                    if (line.startsWith("data: ") && line.contains("\"content\":\"") && !line.contains("\"role\"")) {
                        contentEvents++;
                    }
                }
                assertEquals(3, contentEvents);
                assertEquals(1, server.activeSequences());
            } // closes the connection mid-stream

            TestClient.Streamed next = new TestClient(server)
                    .stream("/chat/completions", chatBody("next", true, 3, ""));
            assertEquals(1 + 3 + 1, next.jsonEvents().size(), "the freed slot serves the next request");

            awaitTrue(() -> timings.size() == 2 && server.activeSequences() == 0);
            // by outcome, not report order: the aborted one reports after it freed the slot, so a starved loop can
            // report it after the next one
            assertEquals(List.of(RequestTiming.Outcome.COMPLETED, RequestTiming.Outcome.ABORTED), timings.stream()
                    .map(RequestTiming::outcome).sorted().toList(), timings::toString);
            RequestTiming aborted = timings.stream().filter(t -> t.outcome() == RequestTiming.Outcome.ABORTED)
                    .findFirst().orElseThrow();
            assertTrue(aborted.completionTokensSent() >= 3 && aborted.completionTokensSent() < 1_000_000);
            assertEquals(RequestTiming.NOT_REACHED, aborted.lastContentFlushedNanos());
        }
    }

    @Test
    void aQueuedRequestThatDisconnectsLeavesTheQueue() throws Exception {
        try (SimulatedServer server = SimulatedServer.start(config().maxConcurrentSequences(1).build())) {
            Socket holder = new Socket("127.0.0.1", server.port());
            sendRaw(holder, "/v1/chat/completions", chatBody("holder", true, 1_000_000, ""), true);
            awaitTrue(() -> server.activeSequences() == 1);
            try (Socket queued = new Socket("127.0.0.1", server.port())) {
                sendRaw(queued, "/v1/completions", TestClient.completionBody("queued", true, 5, ""), true);
                awaitTrue(() -> server.queuedRequests() == 1);
            }
            awaitTrue(() -> server.queuedRequests() == 0);
            holder.close();
            awaitTrue(() -> server.activeSequences() == 0);

            JsonNode served = new TestClient(server).postJson("/completions",
                    TestClient.completionBody("after", false, 2, ""));
            assertEquals(2, served.get("usage").get("completion_tokens").asInt());
            awaitTrue(() -> timings.size() == 3);
            RequestTiming queuedTiming = timings.get(0);
            assertEquals(RequestTiming.Outcome.ABORTED, queuedTiming.outcome());
            assertEquals(RequestTiming.NOT_REACHED, queuedTiming.slotGrantedNanos());
            assertEquals(0, queuedTiming.completionTokensSent());
        }
    }

    @Test
    void timingListenerReportsTheServersSendTimes() throws Exception {
        try (SimulatedServer server = SimulatedServer.start(config().build())) {
            TestClient.Streamed response = new TestClient(server)
                    .stream("/chat/completions", chatBody("timed", true, 8, ""));
            awaitTrue(() -> timings.size() == 1);
            RequestTiming timing = timings.get(0);
            assertEquals(response.jsonEvents().get(0).get("id").asText(), timing.requestId());
            assertEquals(RequestTiming.Outcome.COMPLETED, timing.outcome());
            assertTrue(timing.stream());
            assertEquals(8, timing.completionTokensSent());
            assertTrue(timing.slotGrantedNanos() - timing.arrivalNanos() >= 0);
            // not queued: the TTFT clock runs from arrival
            assertEquals(timing.arrivalNanos() + TTFT.toNanos(), timing.firstContentDueNanos());
            assertTrue(timing.firstContentFlushedNanos() - timing.arrivalNanos() >= TTFT.toNanos());
            // due times are absolute: a late first chunk does not push the last one back
            assertTrue(timing.lastContentFlushedNanos() - timing.arrivalNanos()
                    >= TTFT.toNanos() + 7 * ITL.toNanos());
        }
    }

    @Test
    void everyChunkHasItsSendTimeOnTheDueSchedule() throws Exception {
        try (SimulatedServer server = SimulatedServer.start(config().build())) {
            new TestClient(server).stream("/chat/completions", chatBody("per chunk", true, 6, ""));
            awaitTrue(() -> timings.size() == 1);
            RequestTiming timing = timings.get(0);
            long[] sent = timing.chunkSentNanos();
            assertEquals(6, sent.length, "one chunk per token by default");
            assertTrue(sent[0] - timing.firstContentDueNanos() >= 0, "never before it is due");
            assertTrue(timing.firstContentFlushedNanos() - sent[0] >= 0, "taken before the flush returned");
            for (int k = 1; k < sent.length; k++) {
                assertTrue(sent[k] - (timing.firstContentDueNanos() + k * ITL.toNanos()) >= 0, "chunk " + k);
            }
            assertTrue(timing.lastContentFlushedNanos() - sent[5] >= 0);
        }
    }

    @Test
    void servesHundredsOfConcurrentStreams() throws Exception {
        int streams = 200;
        int maxTokens = 20;
        try (SimulatedServer server = SimulatedServer.start(config().maxConcurrentSequences(256).build())) {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            for (int i = 0; i < streams; i++) {
                HttpRequest request = HttpRequest.newBuilder(URI.create(server.baseUrl() + "/chat/completions"))
                        .timeout(TestClient.REQUEST_TIMEOUT)
                        .POST(HttpRequest.BodyPublishers.ofString(chatBody("p" + i, true, maxTokens, "")))
                        .build();
                responses.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
            }
            ConcurrentHashMap<String, Boolean> ids = new ConcurrentHashMap<>();
            for (CompletableFuture<HttpResponse<String>> future : responses) {
                HttpResponse<String> response = future.get();
                assertEquals(200, response.statusCode());
                String body = response.body();
                assertTrue(body.endsWith("data: [DONE]\n\n"));
                assertEquals(1 + maxTokens + 1 + 1, body.split("\n\n").length, "role, tokens, finish, [DONE]");
                ids.put(body.substring(body.indexOf("chatcmpl-"), body.indexOf('"', body.indexOf("chatcmpl-"))), true);
            }
            assertEquals(streams, ids.size(), "ids are unique");
            awaitTrue(() -> timings.size() == streams);
            assertTrue(timings.stream().allMatch(t -> t.outcome() == RequestTiming.Outcome.COMPLETED));
            assertEquals(0, server.activeSequences());
        }
    }

    @Test
    void zeroDelaysSendEverythingInBatches() throws Exception {
        int maxTokens = 3 * Generation.MAX_CHUNKS_PER_BATCH + 7;
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ZERO).interTokenDelay(Duration.ZERO).build())) {
            TestClient client = new TestClient(server);
            TestClient.Streamed response = client.stream("/completions",
                    TestClient.completionBody("zero", true, maxTokens, ""));
            List<JsonNode> chunks = response.jsonEvents();
            assertEquals(maxTokens + 1, chunks.size());
            StringBuilder text = new StringBuilder();
            for (JsonNode chunk : chunks) text.append(chunk.get("choices").get(0).get("text").asText());
            JsonNode whole = client.postJson("/completions", TestClient.completionBody("zero", false, maxTokens, ""));
            assertEquals(whole.get("choices").get(0).get("text").asText(), text.toString());
        }
    }

    @Test
    void nioTransportKeepsTheSameContract() throws Exception {
        try (SimulatedServer server = SimulatedServer.start(config().build(), Transport.NIO)) {
            assertEquals("nio", server.transportName());
            TestClient.Streamed response = new TestClient(server)
                    .stream("/chat/completions", chatBody("nio", true, 5, ""));
            assertEquals(1 + 5 + 1, response.jsonEvents().size());
            for (int k = 0; k < 5; k++) {
                long elapsedNanos = response.events().get(1 + k).arrivalNanos() - response.sentNanos();
                assertTrue(elapsedNanos >= TTFT.toNanos() + k * ITL.toNanos());
            }
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        try (SimulatedServer server = SimulatedServer.start(config().build());
             Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            sendRaw(socket, "/v1/chat/completions", chatBody("one", true, 3, ""), true);
            sendRaw(socket, "/v1/completions", TestClient.completionBody("two", false, 2, ""), false);
            String all = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int done = all.indexOf("data: [DONE]");
            int secondResponse = all.indexOf("HTTP/1.1 200", 1);
            assertTrue(done > 0 && secondResponse > done, all);
            assertTrue(all.indexOf("\"text_completion\"") > secondResponse, all);
        }
    }

    @Test
    void prefillCostPerPromptTokenDelaysTheFirstToken() throws Exception {
        Duration perToken = Duration.ofMillis(1);
        try (SimulatedServer server = SimulatedServer.start(config()
                .prefillPerPromptToken(perToken).promptTokenCounter(text -> 80).build())) {
            TestClient.Streamed response = new TestClient(server).stream("/completions",
                    TestClient.completionBody("eighty tokens, says the counter", true, 2,
                            "\"stream_options\":{\"include_usage\":true}"));
            long firstNanos = response.events().get(0).arrivalNanos() - response.sentNanos();
            assertTrue(firstNanos >= TTFT.toNanos() + 80 * perToken.toNanos(), firstNanos + " ns");
            List<JsonNode> chunks = response.jsonEvents();
            assertEquals(80, chunks.get(chunks.size() - 1).get("usage").get("prompt_tokens").asInt());
        }
    }

    @Test
    void aFailingPromptCounterIsA500AndTheConnectionStaysUsable() throws Exception {
        try (SimulatedServer server = SimulatedServer.start(config().promptTokenCounter(text -> {
            if (text.contains("boom")) throw new IllegalStateException("tokenizer broke");
            return 3;
        }).build())) {
            TestClient client = new TestClient(server);
            HttpResponse<String> failed = client.post("/completions", TestClient.completionBody("boom", false, 2, ""));
            assertEquals(500, failed.statusCode());
            assertEquals("server_error", TestClient.JSON.readTree(failed.body()).get("error").get("type").asText());
            JsonNode ok = client.postJson("/completions", TestClient.completionBody("fine", false, 2, ""));
            assertEquals(3, ok.get("usage").get("prompt_tokens").asInt());
        }
    }

    private static long firstContentNanos(TestClient.Streamed response) {
        return response.events().get(1).arrivalNanos(); // event 0 is the role chunk
    }

    private static void sendRaw(Socket socket, String path, String body, boolean keepAlive) throws Exception {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String head = "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + bytes.length + "\r\n" + (keepAlive ? "" : "Connection: close\r\n") + "\r\n";
        OutputStream out = socket.getOutputStream();
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
    }

    /** Waits for a condition that follows from events already observed; fails after a generous safety net. */
    private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
        long deadlineNanos = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadlineNanos > 0) throw new AssertionError("condition not reached in 10 s");
            Thread.sleep(2);
        }
    }
}

package io.llmperf4j.server;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmperf4j.servermetrics.exposition.Exposition;
import io.llmperf4j.servermetrics.exposition.ExpositionParser;
import io.llmperf4j.servermetrics.exposition.Sample;
import io.llmperf4j.servermetrics.vllm.VllmMetricsExposition;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;

import static io.llmperf4j.server.TestClient.chatBody;
import static io.llmperf4j.server.TestClient.completionBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code GET /metrics}: vLLM-named Prometheus text whose counts are what the simulator really served. */
class MetricsEndpointTest {
    /** The most the test waits for the server's bookkeeping on its own event loop: generous, never a measurement. */
    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void countsWhatWasServed() throws Exception {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)).build())) {
            TestClient client = new TestClient(server);
            long completion = 0;
            long prompt = 0;
            TestClient.Streamed streamed = client.stream("/chat/completions",
                    chatBody("hello there", true, 12, "\"stream_options\":{\"include_usage\":true}"));
            JsonNode streamUsage = streamed.jsonEvents().get(streamed.jsonEvents().size() - 1).get("usage");
            completion += streamUsage.get("completion_tokens").asLong();
            prompt += streamUsage.get("prompt_tokens").asLong();
            HttpResponse<String> whole = client.post("/completions", completionBody("abc", false, 7, ""));
            JsonNode usage = TestClient.JSON.readTree(whole.body()).get("usage");
            completion += usage.get("completion_tokens").asLong();
            prompt += usage.get("prompt_tokens").asLong();

            String origin = server.baseUrl().substring(0, server.baseUrl().length() - "/v1".length());
            TestClient scraper = new TestClient(origin, null);
            HttpResponse<String> metrics = scraper.get("/metrics");
            // the server ends a request's bookkeeping just after flushing its last bytes, on its own event loop:
            // a scrape on another connection can come first (as with vLLM), so wait for the request to be counted
            // (up to 20 s: a count of 100 polls ran out in ~1 s, which a starved loop can take)
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (value(ExpositionParser.parse(metrics.body()), "vllm:num_requests_running") > 0
                    && System.nanoTime() - deadline < 0) {
                Thread.sleep(10);
                metrics = scraper.get("/metrics");
            }

            assertEquals(200, metrics.statusCode());
            assertEquals(VllmMetricsExposition.CONTENT_TYPE, metrics.headers().firstValue("content-type").orElse(""));
            Exposition e = ExpositionParser.parse(metrics.body());
            assertEquals(19, completion);
            assertEquals(completion, value(e, "vllm:generation_tokens_total"));
            assertEquals(prompt, value(e, "vllm:prompt_tokens_total"));
            assertEquals(0, value(e, "vllm:num_requests_running"));
            assertEquals(0, value(e, "vllm:num_requests_waiting"));
            assertEquals(2, value(e, "vllm:time_to_first_token_seconds_count"));
            assertEquals(2, value(e, "vllm:e2e_request_latency_seconds_count"));
            // every scheduled request is a queue-time observation, 0 s for one that found a free slot (as vLLM's)
            assertEquals(2, value(e, "vllm:request_queue_time_seconds_count"));
            // the streamed request's 12 tokens left in content events: one gap per event after the first
            long events = streamed.jsonEvents().stream().filter(ev -> ev.path("choices").path(0).path("delta")
                    .path("content").asText("").length() > 0).count();
            assertEquals(events - 1, value(e, "vllm:inter_token_latency_seconds_count"));
            assertEquals(events - 1, value(e, "vllm:time_per_output_token_seconds_count"));
        }
    }

    /**
     * Each request counts under the model it named ({@code model_name}), and KV usage is the tokens running requests
     * hold (prompt and generated so far) over the pool, the prefix cache's blocks: 4 blocks of 100 tokens here. The
     * request to b runs ~1.5 s (150 ms between tokens), the window the test's scrapes must land in while it runs; at
     * 40 ms it was 0.4 s, which a starved test thread can miss. The cost: ~1.4 s more.
     */
    @Test
    void countsPerModelAndKvUsageOfRunningRequests() throws Exception {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder().modelIds("a", "b")
                .prefixCacheBlocks(4).prefixBlockTokens(100)
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(150)).build())) {
            TestClient client = new TestClient(server);
            String origin = server.baseUrl().substring(0, server.baseUrl().length() - "/v1".length());
            TestClient scraper = new TestClient(origin, null);
            Exposition before = ExpositionParser.parse(scraper.get("/metrics").body());
            assertEquals(0.0, value(before, "vllm:kv_cache_usage_perc", "a"), "served from the start, idle: 0");
            assertEquals(0, value(before, "vllm:generation_tokens_total", "b"), "configured models from the start");

            HttpResponse<String> toA = client.post("/completions", completionBody("abc", false, 3, "")
                    .replace("\"test-model\"", "\"a\""));
            long promptA = TestClient.JSON.readTree(toA.body()).get("usage").get("prompt_tokens").asLong();
            // one request to b, left running (150 ms between its 10 tokens) while /metrics is read
            var toB = java.net.http.HttpClient.newHttpClient().sendAsync(java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create(server.baseUrl() + "/completions"))
                    .header("content-type", "application/json")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(completionBody("hello there", false, 10,
                            "").replace("\"test-model\"", "\"b\""))).build(),
                    HttpResponse.BodyHandlers.ofString());
            Exposition during = ExpositionParser.parse(scraper.get("/metrics").body());
            long admitted = System.nanoTime() + WAIT.toNanos();
            while (value(during, "vllm:num_requests_running", "b") == 0 && System.nanoTime() - admitted < 0) {
                Thread.sleep(5); // a bounded wait for b to be admitted, no timing assertion
                during = ExpositionParser.parse(scraper.get("/metrics").body());
            }
            double kvTokens = 400 * sampleValue(during, "vllm:kv_cache_usage_perc", "b");
            long promptB = TestClient.JSON.readTree(toB.get().body()).get("usage").get("prompt_tokens").asLong();
            assertEquals(1, value(during, "vllm:num_requests_running", "b"));
            assertEquals(0, value(during, "vllm:num_requests_running", "a"));
            assertEquals(kvTokens, Math.rint(kvTokens), 1e-9, "whole tokens over 400");
            assertTrue(kvTokens >= promptB && kvTokens <= promptB + 10, kvTokens + " tokens held, prompt " + promptB);

            Exposition after = ExpositionParser.parse(scraper.get("/metrics").body());
            long counted = System.nanoTime() + WAIT.toNanos();
            while (value(after, "vllm:num_requests_running", "b") > 0 && System.nanoTime() - counted < 0) {
                Thread.sleep(10);
                after = ExpositionParser.parse(scraper.get("/metrics").body());
            }
            assertEquals(3, value(after, "vllm:generation_tokens_total", "a"));
            assertEquals(10, value(after, "vllm:generation_tokens_total", "b"));
            assertEquals(promptA, value(after, "vllm:prompt_tokens_total", "a"));
            assertEquals(promptB, value(after, "vllm:prompt_tokens_total", "b"));
            assertEquals(1, value(after, "vllm:e2e_request_latency_seconds_count", "a"));
            assertEquals(1, value(after, "vllm:e2e_request_latency_seconds_count", "b"));
            assertEquals(0.0, sampleValue(after, "vllm:kv_cache_usage_perc", "b"), "every token freed");
        }
    }

    @Test
    void withoutAPrefixCacheThereIsNoKvPoolToReport() throws Exception {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder().prefixCacheBlocks(0).build())) {
            String origin = server.baseUrl().substring(0, server.baseUrl().length() - "/v1".length());
            Exposition e = ExpositionParser.parse(new TestClient(origin, null).get("/metrics").body());
            assertTrue(e.samples().stream().noneMatch(s -> s.name().equals("vllm:kv_cache_usage_perc")));
        }
    }

    private static long value(Exposition e, String sampleName, String model) {
        return (long) sampleValue(e, sampleName, model);
    }

    private static double sampleValue(Exposition e, String sampleName, String model) {
        return e.samples().stream().filter(s -> s.name().equals(sampleName)
                && model.equals(s.labels().get("model_name"))).mapToDouble(Sample::value).sum();
    }

    private static long value(Exposition e, String sampleName) {
        return e.samples().stream().filter(s -> s.name().equals(sampleName)).mapToLong(s -> (long) s.value())
                .sum();
    }
}

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

/** {@code GET /metrics}: vLLM-named Prometheus text whose counts are what the simulator really served. */
class MetricsEndpointTest {

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
            for (int i = 0; i < 100 && value(ExpositionParser.parse(metrics.body()), "vllm:num_requests_running") > 0;
                 i++) {
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

    private static long value(Exposition e, String sampleName) {
        return e.samples().stream().filter(s -> s.name().equals(sampleName)).mapToLong(s -> (long) s.value())
                .sum();
    }
}

package example;

import io.llmperf4j.engine.Benchmark;
import io.llmperf4j.engine.BenchmarkResult;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.Secret;
import io.llmperf4j.engine.load.LevelSummary;
import io.llmperf4j.engine.load.LoadProfile;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.model.RequestSpec;

import java.time.Duration;
import java.util.List;

/** A concurrency sweep through the Java API: the example of docs/java-api.md, run as is by JavaApiExampleTest. */
public final class SweepExample {
    /** java -cp llmperf4j.jar:classes SweepExample http://127.0.0.1:8000/v1 [API key] */
    public static void main(String[] args) {
        run(args[0], args.length > 1 ? args[1] : "EMPTY");
    }

    public static BenchmarkResult run(String baseUrl, String apiKey) {
        // the requests to send: index, prompt, input tokens to report, max_tokens
        List<RequestSpec> workload = List.of(
                new RequestSpec(0, "Hello! Please introduce yourself briefly.", 9, 16),
                new RequestSpec(1, "Summarise in one sentence what a load test is for.", 12, 64));
        BenchmarkResult result = Benchmark.builder()
                .name("chat-smoke")
                .endpoint(ClientConfig.builder(EndpointUrls.chatCompletions(baseUrl), "my-model")
                        .apiKey(Secret.of(apiKey))
                        .maxConnections(16)
                        .build())
                .workload(workload)
                .load(LoadProfile.concurrencySweep(List.of(1, 4, 16)).withRequestsPerLevel(20)
                        .withPause(Duration.ofSeconds(1)))
                .warmup(Warmup.requests(2))
                .build()
                .run();
        for (LevelSummary level : result.summaries()) {
            System.out.printf("concurrency %.0f: %d/%d ok, %.1f output tok/s, TTFT p90 %.1f ms%n", level.level(),
                    level.successes(), level.total(), level.outputTokensPerSecond(), level.ttftP90Millis());
        }
        result.verdict().describe("concurrency").forEach(System.out::println);
        return result;
    }
}

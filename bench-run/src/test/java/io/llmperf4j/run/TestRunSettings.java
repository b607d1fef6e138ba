package io.llmperf4j.run;

import io.llmperf4j.model.BenchmarkSettings;

import java.util.Map;

/**
 * The settings this module's tests record for their small llmperf-style runs: model "m", llmperf's prompt mode and
 * the built-in Llama-2 tokenizer, fixed lengths (stddev 0), seed 1, no sampling parameters nor metadata. Each test
 * adds its own sizes (lengths, concurrency, timeout, requests).
 */
final class TestRunSettings {

    private TestRunSettings() {
    }

    static BenchmarkSettings.Builder llmperfRun(String endpoint) {
        return BenchmarkSettings.builder()
                .model("m")
                .stddevInputTokens(0)
                .stddevOutputTokens(0)
                .additionalSamplingParams(Map.of())
                .llmApi("openai")
                .metadata(Map.of())
                .endpoint(endpoint)
                .tokenizer("llama-2 (built in)")
                .promptMode("llmperf")
                .seed(1L);
    }
}

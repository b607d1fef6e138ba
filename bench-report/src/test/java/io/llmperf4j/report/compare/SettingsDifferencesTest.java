package io.llmperf4j.report.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The settings two compared runs differ in, one line each, read from their summaries. */
class SettingsDifferencesTest {

    private static Path run(Path dir, String endpoint, int concurrency, int in, int out, String load)
            throws Exception {
        Files.createDirectories(dir);
        String metadata = load == null ? "{}" : "{\"llmperf4j_load\": \"" + load + "\"}";
        Files.writeString(dir.resolve("m_" + in + "_" + out + "_llmperf4j_summary.json"), """
                {"schema": "llmperf4j.summary/3", "settings": {"model": "m", "endpoint": "%s", "llm_api": "openai",
                 "mean_input_tokens": %d, "stddev_input_tokens": 150, "mean_output_tokens": %d,
                 "stddev_output_tokens": 80, "num_concurrent_requests": %d, "timeout_s": 90,
                 "max_num_completed_requests": 8, "additional_sampling_params": {}, "metadata": %s,
                 "tokenizer": "llama-2 (built in)", "prompt_mode": "llmperf", "seed": 11111}}
                """.formatted(endpoint, in, out, concurrency, metadata));
        return dir;
    }

    @Test
    void namesEverySettingThatDiffersBaselineFirst(@TempDir Path tmp) throws Exception {
        Path a = run(tmp.resolve("a"), "http://127.0.0.1:1/v1/chat/completions", 6, 200, 40, null);
        Path b = run(tmp.resolve("b"), "http://127.0.0.1:2/v1/chat/completions", 1, 550, 20, null);
        assertEquals(List.of(
                "differs: endpoint: http://127.0.0.1:1/v1/chat/completions vs http://127.0.0.1:2/v1/chat/completions",
                "differs: load: concurrency 6 vs concurrency 1",
                "differs: token shape: input 200±150, output 40±80 vs input 550±150, output 20±80"),
                SettingsDifferences.between(a, b));
    }

    @Test
    void aClosedLoopAgainstAnOpenLoopIsNamed(@TempDir Path tmp) throws Exception {
        Path a = run(tmp.resolve("a"), "e", 4, 550, 150, null);
        Path b = run(tmp.resolve("b"), "e", 4, 550, 150, "open loop, 4 req/s poisson, seed 11111");
        assertEquals(List.of("differs: load: concurrency 4 vs open loop, 4 req/s poisson, seed 11111"),
                SettingsDifferences.between(a, b));
    }

    @Test
    void identicalSettingsGiveNoLine(@TempDir Path tmp) throws Exception {
        Path a = run(tmp.resolve("a"), "e", 4, 550, 150, null);
        Path b = run(tmp.resolve("b"), "e", 4, 550, 150, null);
        assertEquals(List.of(), SettingsDifferences.between(a, b));
        assertEquals(List.of(), SettingsDifferences.between(a, tmp.resolve("missing")));
    }
}

package io.llmperf4j.report.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.BenchmarkSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code <base>_jmh.json} read back, and the settings a run with iterations records in its params. */
class JmhFileTest {

    @Test
    void readsEachLevelsParamsScoresAndIterations(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("m_100_5" + JmhFile.SUFFIX);
        Files.writeString(file, """
                [ {"forks": 2, "warmupIterations": 1, "warmupTime": "1 s", "measurementIterations": 3,
                   "measurementTime": "2 s", "params": {"rate": "2.5", "arrival": "poisson", "model": "m",
                   "endpoint": "http://h/v1", "additional_sampling_params": "{}"},
                   "primaryMetric": {"score": 105.5, "scoreError": "NaN"}},
                  {"params": {"concurrency": "4", "model": "m"}, "primaryMetric": {"score": 90.0, "scoreError": 3.5}} ]
                """);
        List<JmhFile.Entry> entries = JmhFile.read(file);
        assertEquals(2, entries.size());
        JmhFile.Entry rate = entries.get(0);
        assertEquals(2, rate.forks());
        assertEquals("1 s", rate.warmupTime());
        assertEquals(3, rate.measurementIterations());
        assertEquals("2 s", rate.measurementTime());
        assertEquals(105.5, rate.score());
        assertNull(rate.scoreError(), "JMH's \"NaN\" is no number");
        assertEquals(Map.of("rate", "2.5", "arrival", "poisson"), rate.load(), "neither the model nor a setting");
        assertTrue(rate.recordsSettings());
        // the iterations CSV names a rate level's unit "req/s"; the JMH param is "rate"
        assertTrue(rate.isLevel("req/s", "2.5"));
        assertFalse(rate.isLevel("concurrency", "2.5"));
        JmhFile.Entry older = entries.get(1);
        assertFalse(older.recordsSettings(), "a file written before the settings were recorded");
        assertTrue(older.isLevel("concurrency", "4"));
        assertFalse(older.isLevel("concurrency", "5"));

        Files.writeString(file, "{}");
        IOException e = assertThrows(IOException.class, () -> JmhFile.read(file));
        assertTrue(e.getMessage().startsWith(file.toString()), e.getMessage());
    }

    @Test
    void settingsAreNamedAsTheSummarysAndCarryNoSecret() {
        Map<String, Object> sampling = new LinkedHashMap<>();
        sampling.put("temperature", 0.5);
        sampling.put("api_key", "sk-abcdefghijklmnopqrstuvwx");
        BenchmarkSettings settings = BenchmarkSettings.builder()
                .model("m")
                .meanInputTokens(550)
                .stddevInputTokens(150)
                .meanOutputTokens(10)
                .stddevOutputTokens(0)
                .numConcurrentRequests(2)
                .timeoutSeconds(90)
                .maxNumCompletedRequests(8)
                .additionalSamplingParams(sampling)
                .llmApi("openai")
                .metadata(Map.of("token", "secret-value"))
                .endpoint("https://user:pass@host:8443/v1/chat/completions?api-key=abc&x=1")
                .tokenizer("llama-2 (built in)")
                .promptMode("exact")
                .seed(7)
                .build();
        Map<String, String> params = JmhFile.settingsParams(settings);
        // whether the endpoint was the simulator: not recorded in these settings, so not among the params
        assertEquals(JmhFile.SETTINGS_KEYS.subList(0, JmhFile.SETTINGS_KEYS.size() - 1),
                List.copyOf(params.keySet()));
        BenchmarkSettings simulated = BenchmarkSettings.builder()
                .model("m")
                .meanInputTokens(550)
                .stddevInputTokens(150)
                .meanOutputTokens(10)
                .stddevOutputTokens(0)
                .numConcurrentRequests(2)
                .timeoutSeconds(90)
                .maxNumCompletedRequests(8)
                .additionalSamplingParams(Map.of())
                .llmApi("openai")
                .metadata(Map.of())
                .endpoint("http://127.0.0.1:1/v1/chat/completions")
                .tokenizer("llama-2 (built in)")
                .promptMode("exact")
                .seed(7)
                .stream(true)
                .simulated(true)
                .build();
        assertEquals(JmhFile.SETTINGS_KEYS, List.copyOf(JmhFile.settingsParams(simulated).keySet()));
        assertEquals("true", JmhFile.settingsParams(simulated).get("simulated"));
        BenchmarkSettings real = simulated.toBuilder().simulated(false).build();
        assertEquals("false", JmhFile.settingsParams(real).get("simulated"), "a real endpoint's is recorded too");
        assertEquals("https://host:8443/v1/chat/completions?api-key=[REDACTED]&x=1", params.get("endpoint"));
        assertEquals("openai", params.get("llm_api"));
        assertEquals("llama-2 (built in)", params.get("tokenizer"));
        assertEquals("exact", params.get("prompt_mode"));
        assertEquals("{\"temperature\":0.5,\"api_key\":\"[REDACTED]\"}", params.get("additional_sampling_params"));
        assertEquals("550", params.get("mean_input_tokens"));
        assertEquals("0", params.get("stddev_output_tokens"));
        assertFalse(params.toString().contains("pass") || params.toString().contains("secret-value"),
                params::toString);
    }
}

package io.llmperf4j.report.llmperf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.report.python.PythonJsonWriter;
import io.llmperf4j.report.testutil.TestResources;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LlmperfSummaryTest {

    private static final String EXAMPLE_SUMMARY = "llmperf-examples/summary_anyscale_70b.json";
    private static final String EXAMPLE_INDIVIDUAL = "llmperf-examples/individual_anyscale_70b.json";
    private static final List<String> EXAMPLE_METADATA_KEYS = List.of("framework", "model_size", "api");

    /** The settings the leaderboard run was made with (llmperf-leaderboard raw_data). */
    private static BenchmarkSettings exampleSettings(Map<String, String> metadata) {
        return BenchmarkSettings.builder()
                .model("meta-llama/Llama-2-70b-chat-hf")
                .meanInputTokens(550)
                .stddevInputTokens(0)
                .meanOutputTokens(150)
                .stddevOutputTokens(0)
                .numConcurrentRequests(5)
                .timeoutSeconds(600)
                .maxNumCompletedRequests(150)
                .additionalSamplingParams(Map.of())
                .llmApi("openai")
                .metadata(metadata)
                .endpoint("https://console.endpoints.anyscale.com/m/v1")
                .tokenizer("llama-2 (built in)")
                .promptMode("llmperf")
                .seed(11111L)
                .build();
    }

    private static Map<String, String> exampleMetadata(Map<String, Object> exampleSummary) {
        Map<String, String> metadata = new LinkedHashMap<>();
        EXAMPLE_METADATA_KEYS.forEach(k -> metadata.put(k, (String) exampleSummary.get(k)));
        return metadata;
    }

    /** The example individual file read back as our per-request metrics. */
    private static List<LlmperfRequestMetrics> exampleRequests() {
        List<LlmperfRequestMetrics> requests = new ArrayList<>();
        for (Map<String, Object> r : TestResources.jsonArrayOfObjects(EXAMPLE_INDIVIDUAL)) {
            requests.add(new LlmperfRequestMetrics((Integer) r.get("error_code"), (String) r.get("error_msg"),
                    ((Number) r.get("inter_token_latency_s")).doubleValue(), (Number) r.get("ttft_s"),
                    (Number) r.get("end_to_end_latency_s"), (Number) r.get("request_output_throughput_token_per_s"),
                    ((Number) r.get("number_total_tokens")).longValue(),
                    ((Number) r.get("number_output_tokens")).longValue(),
                    ((Number) r.get("number_input_tokens")).longValue()));
        }
        return requests;
    }

    /**
     * Our statistics over llmperf's own individual file equal, to the last bit, the statistics llmperf wrote in
     * the matching summary file (quantiles, mean, min, max, stddev of all six metrics; int min/max as strings).
     */
    @Test
    void reproducesLlmperfStatisticsBitForBit() {
        Map<String, Object> expected = TestResources.jsonObject(EXAMPLE_SUMMARY);
        LlmperfSummary summary = LlmperfSummary.of(exampleSettings(exampleMetadata(expected)), exampleRequests(),
                100.0, 1703136129L);
        Map<String, Object> actual = LlmperfSummaryDocument.toJsonObject(summary);
        int compared = 0;
        for (LlmperfMetric metric : LlmperfMetric.values()) {
            for (Map.Entry<String, Object> entry : expected.entrySet()) {
                if (entry.getKey().startsWith("results_" + metric.key() + "_")) {
                    assertEquals(entry.getValue(), actual.get(entry.getKey()), entry.getKey());
                    compared++;
                }
            }
        }
        assertEquals(60, compared);
        assertEquals(150, summary.numCompletedRequests());
        assertEquals(0.0, summary.errorRate());
        assertEquals("{}", summary.errorCodeFrequency());
    }

    /** The two wall-clock figures are consistent with one duration, as in llmperf. */
    @Test
    void throughputAndRequestsPerMinuteShareTheRunDuration() {
        Map<String, Object> expected = TestResources.jsonObject(EXAMPLE_SUMMARY);
        double outputTokens = exampleRequests().stream().mapToLong(LlmperfRequestMetrics::numberOutputTokens).sum();
        double durationS = outputTokens / (Double) expected.get("results_mean_output_throughput_token_per_s");
        LlmperfSummary summary = LlmperfSummary.of(exampleSettings(Map.of()), exampleRequests(), durationS, 0L);
        assertEquals((Double) expected.get("results_num_completed_requests_per_min"),
                summary.numCompletedRequestsPerMin(), 1e-9);
    }

    @Test
    void keyListEqualsLlmperfsExampleFile() {
        Map<String, Object> example = TestResources.jsonObject(EXAMPLE_SUMMARY);
        List<String> exampleKeys = List.copyOf(example.keySet());

        LlmperfSummary withMetadata = LlmperfSummary.of(exampleSettings(exampleMetadata(example)),
                exampleRequests(), 100.0, 1703136129L);
        assertEquals(exampleKeys, List.copyOf(LlmperfSummaryDocument.toJsonObject(withMetadata).keySet()));

        List<String> withoutMetadataKeys = new ArrayList<>(exampleKeys);
        withoutMetadataKeys.removeAll(EXAMPLE_METADATA_KEYS);
        LlmperfSummary withoutMetadata = LlmperfSummary.of(exampleSettings(Map.of()), exampleRequests(), 100.0, 0L);
        assertEquals(withoutMetadataKeys, List.copyOf(LlmperfSummaryDocument.toJsonObject(withoutMetadata).keySet()));
    }

    /** Golden file from pandas + json.dump for the same records (see SampleRuns): every byte. */
    @Test
    void mixedRunMatchesPandasGoldenFile() {
        String json = PythonJsonWriter.toJson(LlmperfSummaryDocument.toJsonObject(LlmperfSummary.of(SampleRuns.mixed())));
        assertEquals(TestResources.text("golden/mixed_summary.json"), json);
    }

    @Test
    void failuresAreCountedButExcludedFromStatistics() {
        LlmperfSummary summary = LlmperfSummary.of(SampleRuns.mixed());
        assertEquals(7, summary.numRequestsStarted());
        assertEquals(3, summary.numberErrors());
        assertEquals(3.0 / 7, summary.errorRate());
        assertEquals(4, summary.numCompletedRequests());
        // most frequent first, like dict(series.value_counts())
        assertEquals("{500: 2, -1: 1}", summary.errorCodeFrequency());
        MetricSummary input = summary.metric(LlmperfMetric.NUMBER_INPUT_TOKENS);
        assertEquals(4, input.count());
        assertEquals(480.0, input.min()); // the failures' 610, 530 and 575 are not in
        assertEquals(601.0, input.max());
        assertEquals(532.75, input.mean());
        // e2e of successes only: 2.1 1.9 2.6 0.5, never the failures' integer 0
        assertEquals(0.5, summary.metric(LlmperfMetric.END_TO_END_LATENCY_S).min());
        // Σ successful output tokens (151+120+131+1) / 5.5 s
        assertEquals(403 / 5.5, summary.meanOutputThroughputTokenPerS());
        assertEquals(4 / 5.5 * 60, summary.numCompletedRequestsPerMin());
        assertEquals(1703136129L, summary.timestampEpochS());
    }

    @Test
    void quantilesAndStddevOnASmallSample() {
        MetricSummary e2e = LlmperfSummary.of(SampleRuns.mixed()).metric(LlmperfMetric.END_TO_END_LATENCY_S);
        // sorted 0.5 1.9 2.1 2.6; p25 at position 0.75: 0.5 + 0.75 * 1.4 computed from above (pandas' value)
        assertEquals(1.5499999999999998, e2e.quantiles().get("p25"));
        assertEquals(2.0, e2e.quantiles().get("p50"));
        assertEquals(2.225, e2e.quantiles().get("p75"));
        assertEquals(2.45, e2e.quantiles().get("p90"));
        assertEquals(2.525, e2e.quantiles().get("p95"));
        assertEquals(2.585, e2e.quantiles().get("p99"));
        assertEquals(List.of("p25", "p50", "p75", "p90", "p95", "p99"), List.copyOf(e2e.quantiles().keySet()));
        assertEquals(1.775, e2e.mean());
        assertEquals(0.899536917900909, e2e.stddev());
    }

    @Test
    void singleSuccessHasNaNStddev() {
        BenchmarkRun run = singleRun();
        LlmperfSummary summary = LlmperfSummary.of(run);
        assertEquals(Double.NaN, summary.metric(LlmperfMetric.TTFT_S).stddev());
        String json = PythonJsonWriter.toJson(LlmperfSummaryDocument.toJsonObject(summary));
        assertTrue(json.contains("\"results_ttft_s_stddev\": NaN,\n"), json);
        assertEquals(TestResources.text("golden/single_summary.json"), json);
    }

    /** llmperf crashes here; we write NaN statistics, zero completions and the real error figures. */
    @Test
    void runWithoutSuccessStillSummarises() {
        LlmperfSummary summary = LlmperfSummary.of(allFailedRun());
        assertEquals(0, summary.numCompletedRequests());
        assertEquals(1.0, summary.errorRate());
        assertEquals("{503: 2}", summary.errorCodeFrequency());
        assertEquals(0.0, summary.meanOutputThroughputTokenPerS());
        MetricSummary output = summary.metric(LlmperfMetric.NUMBER_OUTPUT_TOKENS);
        assertEquals(Double.NaN, output.mean());
        assertEquals(Double.NaN, output.minJsonValue()); // a float NaN, not the string of an int
        assertEquals(TestResources.text("golden/allfailed_summary.json"),
                PythonJsonWriter.toJson(LlmperfSummaryDocument.toJsonObject(summary)));
    }

    @Test
    void runWithoutAnyRecordHasIntegerZeroErrorRate() {
        LlmperfSummary summary = LlmperfSummary.of(SampleRuns.run(SampleRuns.plainSettings(), 1_000_000_000L, true));
        assertEquals(0L, summary.errorRate());
        assertEquals("{}", summary.errorCodeFrequency());
        String json = PythonJsonWriter.toJson(LlmperfSummaryDocument.toJsonObject(summary));
        assertTrue(json.contains("\"results_error_rate\": 0,\n"), json);
        assertTrue(json.contains("\"results_number_input_tokens_min\": NaN,\n"), json);
    }

    /** pandas holds an all-int column as int64, so even ttft's min/max become strings when no content came. */
    @Test
    void allIntegerTtftColumnWritesStringMinMax() {
        BenchmarkRun run = SampleRuns.run(SampleRuns.plainSettings(), 1_000_000_000L, false,
                SampleRuns.success(0, -1, -1, 400_000_000L, 2, 550, 1),
                SampleRuns.success(1, -1, -1, 300_000_000L, 2, 560, 1));
        Map<String, Object> doc = LlmperfSummaryDocument.toJsonObject(LlmperfSummary.of(run));
        assertEquals("0", doc.get("results_ttft_s_min"));
        assertEquals("0", doc.get("results_ttft_s_max"));
        assertEquals(0.0, doc.get("results_ttft_s_mean"));
        assertEquals(1.0, doc.get("results_number_output_tokens_quantiles_p50"));
        assertEquals("1", doc.get("results_number_output_tokens_max"));
    }

    @Test
    void additionalSamplingParamsAreFlattenedAndMetadataOverwritesInPlace() {
        Map<String, Object> doc = LlmperfSummaryDocument.toJsonObject(LlmperfSummary.of(SampleRuns.mixed()));
        List<String> keys = List.copyOf(doc.keySet());
        assertEquals(List.of("version", "name", "model", "mean_input_tokens", "stddev_input_tokens",
                "mean_output_tokens", "stddev_output_tokens", "num_concurrent_requests",
                "additional_sampling_params_temperature", "additional_sampling_params_top_p",
                "additional_sampling_params_stop", "additional_sampling_params_extra_a_b",
                "additional_sampling_params_seed", "results_inter_token_latency_s_quantiles_p25"), keys.subList(0, 14));
        assertFalse(keys.contains("additional_sampling_params_extra_empty")); // an empty dict leaves no key
        assertEquals(List.of("\n\n", "END"), doc.get("additional_sampling_params_stop")); // lists are kept
        assertEquals("overridden-model", doc.get("model")); // --metadata model=... overwrote it, same place
        assertEquals("meta-llama-Llama-2-7b-chat-hf_550_150_summary", doc.get("name"));
        assertEquals(List.of("framework", "gpu", "timestamp"), keys.subList(keys.size() - 3, keys.size()));
        assertEquals(1703136129L, doc.get("timestamp"));
    }

    @Test
    void metadataNamedTimestampKeepsItsPlaceButTheIntegerWins() {
        Map<String, String> metadata = new LinkedHashMap<>();
        metadata.put("timestamp", "user");
        metadata.put("team", "perf");
        metadata.put("version", "mine");
        BenchmarkRun run = SampleRuns.run(SampleRuns.settings("m", Map.of(), metadata), 1_000_000_000L, false,
                SampleRuns.success(0, 1, 2, 1_000_000_000L, 1, 10, 2));
        Map<String, Object> doc = LlmperfSummaryDocument.toJsonObject(LlmperfSummary.of(run));
        List<String> keys = List.copyOf(doc.keySet());
        assertEquals("version", keys.get(0));
        assertEquals("mine", doc.get("version"));
        assertEquals(List.of("timestamp", "team"), keys.subList(keys.size() - 2, keys.size()));
        assertEquals(SampleRuns.END_EPOCH_MILLIS / 1000, doc.get("timestamp"));
    }

    static BenchmarkRun singleRun() {
        return SampleRuns.run(SampleRuns.settings("gpt-3.5-turbo", Map.of(), Map.of()), 1_300_000_000L, false,
                SampleRuns.success(0, 123_456_789L, 1_234_567_890L, 1_300_000_000L, 77, 550, 76));
    }

    static BenchmarkRun allFailedRun() {
        return SampleRuns.run(SampleRuns.settings("gpt-3.5-turbo", Map.of(), Map.of()), 2_000_000_000L, true,
                SampleRuns.failure(0, -1, -1, 30_000_000L, 0, 550, 1, FailureKind.HTTP_STATUS, 503,
                        "Service Unavailable"),
                SampleRuns.failure(1, -1, -1, 40_000_000L, 0, 560, 1, FailureKind.HTTP_STATUS, 503,
                        "Service Unavailable"));
    }
}

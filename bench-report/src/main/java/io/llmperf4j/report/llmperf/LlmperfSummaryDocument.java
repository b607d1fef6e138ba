package io.llmperf4j.report.llmperf;

import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.report.summary.Redaction;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The content of llmperf's {@code <base>_summary.json}: a flat, ordered map ready for
 * {@link io.llmperf4j.report.python.PythonJsonWriter}.
 *
 * <p>It is built the way llmperf builds it, with Python dict semantics (a {@link LinkedHashMap}: overwriting a
 * key keeps its position), so key order and overwrites match: the nested run dict (model, token parameters,
 * {@code additional_sampling_params}, {@code results}), then {@code summary.update(user_metadata)}, then
 * {@code timestamp}; then {@code {"version", "name"}} updated with all of that; then flattened with "_" where
 * only dicts are flattened (lists stay, an empty dict leaves no key).
 */
public final class LlmperfSummaryDocument {

    /** llmperf's RESULTS_VERSION. */
    public static final String VERSION = "2023-08-31";

    private static final String SEPARATOR = "_";

    private LlmperfSummaryDocument() {
    }

    /** The summary file's keys and values, in file order. */
    public static Map<String, Object> toJsonObject(LlmperfSummary summary) {
        BenchmarkSettings settings = summary.settings();
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("model", settings.model());
        run.put("mean_input_tokens", (long) settings.meanInputTokens());
        run.put("stddev_input_tokens", (long) settings.stddevInputTokens());
        run.put("mean_output_tokens", (long) settings.meanOutputTokens());
        run.put("stddev_output_tokens", (long) settings.stddevOutputTokens());
        run.put("num_concurrent_requests", (long) settings.numConcurrentRequests());
        run.put("additional_sampling_params", Redaction.jsonValue(settings.additionalSamplingParams()));
        run.put("results", results(summary));
        run.putAll(Redaction.metadata(settings.metadata())); // user metadata may overwrite any key above, in place
        run.put("timestamp", summary.timestampEpochS());

        Map<String, Object> document = new LinkedHashMap<>();
        document.put("version", VERSION);
        document.put("name", LlmperfFileNames.baseName(settings) + "_summary");
        document.putAll(run);

        Map<String, Object> flat = new LinkedHashMap<>();
        flatten(document, "", flat);
        return flat;
    }

    private static Map<String, Object> results(LlmperfSummary summary) {
        Map<String, Object> results = new LinkedHashMap<>();
        for (LlmperfMetric metric : LlmperfMetric.values()) {
            MetricSummary stats = summary.metric(metric);
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("quantiles", new LinkedHashMap<String, Object>(stats.quantiles()));
            entry.put("mean", stats.mean());
            entry.put("min", stats.minJsonValue());
            entry.put("max", stats.maxJsonValue());
            entry.put("stddev", stats.stddev());
            results.put(metric.key(), entry);
        }
        results.put("num_requests_started", (long) summary.numRequestsStarted());
        results.put("error_rate", summary.errorRate());
        results.put("number_errors", (long) summary.numberErrors());
        results.put("error_code_frequency", summary.errorCodeFrequency());
        results.put("mean_output_throughput_token_per_s", summary.meanOutputThroughputTokenPerS());
        results.put("num_completed_requests", (long) summary.numCompletedRequests());
        results.put("num_completed_requests_per_min", summary.numCompletedRequestsPerMin());
        return results;
    }

    /**
     * llmperf's {@code flatten_dict(d)}: nested dicts become {@code parent_child} keys, in order (a later duplicate
     * key overwrites the value in the first one's place, as {@code dict(items)} does); lists stay; an empty dict
     * leaves no key. Also used for the correctness summary.
     */
    public static Map<String, Object> flattenDict(Map<?, ?> nested) {
        Map<String, Object> flat = new LinkedHashMap<>();
        flatten(nested, "", flat);
        return flat;
    }

    /** llmperf's {@code flatten_dict(d, parent_key="", sep="_")}. */
    private static void flatten(Map<?, ?> nested, String parentKey, Map<String, Object> flat) {
        for (Map.Entry<?, ?> entry : nested.entrySet()) {
            String key = String.valueOf(entry.getKey());
            String flatKey = parentKey.isEmpty() ? key : parentKey + SEPARATOR + key;
            if (entry.getValue() instanceof Map<?, ?> child) {
                flatten(child, flatKey, flat);
            } else {
                flat.put(flatKey, entry.getValue());
            }
        }
    }
}

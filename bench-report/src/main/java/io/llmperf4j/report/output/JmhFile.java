package io.llmperf4j.report.output;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.report.summary.Redaction;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code <base>_jmh.json} read back, for the iterations page and compare: JMH's result array as the harness writes it
 * (bench-engine's {@code JmhJsonFormat}; the report cannot depend on it), one entry per level. Each entry's
 * {@code params} hold the level's load ({@code concurrency}, or {@code rate}, {@code arrival} …), {@code model} and,
 * in files written since, the run's settings ({@link #SETTINGS_KEYS}, named as the summary's {@code settings} keys),
 * which a run with iterations records nowhere else.
 */
public final class JmhFile {

    /** The file's name ends with this: {@code <base>_jmh.json}. */
    public static final String SUFFIX = "_jmh.json";

    /**
     * The params that record the run's settings, as the summary names them: the endpoint without credentials, the
     * LLM API, the tokenizer, the prompt mode (or the prompts' source: dataset, manifest, …), the extra sampling
     * parameters (JSON text, key-shaped values redacted), the token shape and whether the endpoint was the embedded
     * simulated server ({@code simulated}: "true", "false" for a real endpoint; absent when not recorded, and for a
     * real endpoint in files written before "false" was).
     */
    public static final List<String> SETTINGS_KEYS = List.of("endpoint", "llm_api", "tokenizer", "prompt_mode",
            "additional_sampling_params", "mean_input_tokens", "stddev_input_tokens", "mean_output_tokens",
            "stddev_output_tokens", "simulated");

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One entry (a level).
     *
     * @param params     JMH's params, in file order
     * @param score      the primary metric's score (output tok/s), or null when not a number
     * @param scoreError the half-width of its 99.9 % interval, or null when not a number
     */
    public record Entry(Map<String, String> params, int forks, int warmupIterations, String warmupTime,
                        int measurementIterations, String measurementTime, Double score, Double scoreError) {

        public Entry {
            params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
        }

        /** The load's params: neither {@code model} nor a setting, e.g. {@code {concurrency=4}}. */
        public Map<String, String> load() {
            Map<String, String> out = new LinkedHashMap<>(params);
            out.remove("model");
            out.keySet().removeAll(SETTINGS_KEYS);
            return out;
        }

        /** Whether the run's settings are in the params (files written before had the load and the model alone). */
        public boolean recordsSettings() {
            return params.containsKey("additional_sampling_params"); // always written, "{}" when none

        }

        /**
         * Whether this entry is the level {@code level} of {@code <base>_iterations.csv}'s {@code loadUnit}
         * ("concurrency", or "req/s" or a sweep file's "sessions/s", whose param is {@code rate}); levels are compared
         * as numbers.
         */
        public boolean isLevel(String loadUnit, String level) {
            boolean rate = "req/s".equals(loadUnit) || "sessions/s".equals(loadUnit);
            String value = params.get(rate ? "rate" : loadUnit);
            if (value == null) return false;
            try {
                return Double.parseDouble(value) == Double.parseDouble(level);
            } catch (NumberFormatException e) {
                return value.equals(level);
            }
        }
    }

    private JmhFile() {
    }

    /** Reads {@code file}; the exception's message names it. */
    public static List<Entry> read(Path file) throws IOException {
        JsonNode doc;
        try {
            doc = JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
        if (!doc.isArray()) throw new IOException(file + ": not a JSON array (JMH's result format)");
        List<Entry> out = new ArrayList<>();
        for (JsonNode e : doc) {
            Map<String, String> params = new LinkedHashMap<>();
            e.path("params").fields().forEachRemaining(p -> params.put(p.getKey(), p.getValue().asText()));
            JsonNode primary = e.path("primaryMetric");
            out.add(new Entry(params, e.path("forks").asInt(), e.path("warmupIterations").asInt(),
                    text(e, "warmupTime"), e.path("measurementIterations").asInt(), text(e, "measurementTime"),
                    number(primary.path("score")), number(primary.path("scoreError"))));
        }
        return out;
    }

    /**
     * The params recording {@code settings} ({@link #SETTINGS_KEYS}), redacted as the summary's are: the endpoint
     * through {@link Redaction#endpoint}, key-shaped sampling values replaced. Null settings are left out. No API key
     * or header is among them.
     */
    public static Map<String, String> settingsParams(BenchmarkSettings settings) {
        Map<String, String> out = new LinkedHashMap<>();
        putIfNotNull(out, "endpoint", Redaction.endpoint(settings.endpoint()));
        putIfNotNull(out, "llm_api", settings.llmApi());
        putIfNotNull(out, "tokenizer", settings.tokenizer());
        putIfNotNull(out, "prompt_mode", settings.promptMode());
        try {
            out.put("additional_sampling_params",
                    JSON.writeValueAsString(Redaction.jsonValue(settings.additionalSamplingParams())));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
        out.put("mean_input_tokens", Integer.toString(settings.meanInputTokens()));
        out.put("stddev_input_tokens", Integer.toString(settings.stddevInputTokens()));
        out.put("mean_output_tokens", Integer.toString(settings.meanOutputTokens()));
        out.put("stddev_output_tokens", Integer.toString(settings.stddevOutputTokens()));
        // true or false whenever known: compare lists a simulator's iterations against a real endpoint's only when
        // both sides record it (files from before wrote it only when true, so their real endpoints read as unknown)
        if (settings.simulated() != null) out.put("simulated", settings.simulated().toString());
        return out;
    }

    private static void putIfNotNull(Map<String, String> out, String key, String value) {
        if (value != null) out.put(key, value);
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.path(field);
        return v.isMissingNode() || v.isNull() ? null : v.asText();
    }

    private static Double number(JsonNode v) {
        return v.isNumber() ? v.asDouble() : null;
    }
}

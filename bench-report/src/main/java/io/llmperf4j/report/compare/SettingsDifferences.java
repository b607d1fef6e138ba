package io.llmperf4j.report.compare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.report.output.ResultsFolder;
import io.llmperf4j.report.output.SweepFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * The settings two compared folders ran with that differ, read from their summaries: model, endpoint, LLM API,
 * load (concurrency, or the open loop's description), token shape, tokenizer, prompt mode and the extra sampling
 * parameters (where a fixed max_tokens comes from). compare still compares them (users compare server
 * configurations on purpose), but says first that a delta may come from the settings rather than the server.
 * A setting one side does not record is left out; an unreadable summary gives no lines.
 */
public final class SettingsDifferences {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SUMMARY_SUFFIX = "_llmperf4j_summary.json";

    private SettingsDifferences() {
    }

    /** One line per differing setting, e.g. "differs: load: concurrency 6 vs concurrency 1" (baseline first); empty when none. */
    public static List<String> between(Path baseline, Path candidate) {
        Map<String, String> a = settingsOf(baseline);
        Map<String, String> b = settingsOf(candidate);
        List<String> lines = new ArrayList<>();
        for (Map.Entry<String, String> e : a.entrySet()) {
            String other = b.get(e.getKey());
            if (other != null && !Objects.equals(e.getValue(), other)) {
                lines.add("differs: " + e.getKey() + ": " + e.getValue() + " vs " + other);
            }
        }
        return lines;
    }

    /** The comparable settings of a results folder or file, in print order; empty when none can be read. */
    static Map<String, String> settingsOf(Path path) {
        Map<String, String> out = new LinkedHashMap<>();
        try {
            ResultsFolder folder = ResultsFolder.detect(path);
            switch (folder.kind()) {
                case RUN -> summaryIn(folder.dir()).ifPresent(s -> fromSummary(s, out, true));
                case SWEEP -> {
                    SweepFiles.Document doc = SweepFiles.read(folder.file());
                    for (SweepFiles.Level l : doc.levels()) {
                        if (l.resultsDir() == null || l.resultsDir().isEmpty()) continue;
                        var summary = summaryIn(folder.dir().resolve(l.resultsDir()));
                        if (summary.isPresent()) {
                            fromSummary(summary.get(), out, false);
                            break;
                        }
                    }
                    putFirst(out, "model", doc.model());
                    out.put("load", doc.load());
                }
                case ITERATIONS -> {
                    Path sweep = folder.dir().resolve(folder.base() + SweepFiles.JSON_SUFFIX);
                    if (Files.isRegularFile(sweep)) {
                        SweepFiles.Document doc = SweepFiles.read(sweep);
                        out.put("model", doc.model());
                        out.put("load", doc.load());
                    }
                }
                case COMPARISON -> {
                    // the models differ on purpose; the load and the token shape should not
                }
            }
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
        out.values().removeIf(Objects::isNull);
        return out;
    }

    private static void putFirst(Map<String, String> out, String key, String value) {
        if (value == null) return;
        Map<String, String> copy = new LinkedHashMap<>(out);
        out.clear();
        out.put(key, value);
        copy.remove(key);
        out.putAll(copy);
    }

    private static java.util.Optional<JsonNode> summaryIn(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) return java.util.Optional.empty();
        Path file;
        try (Stream<Path> list = Files.list(dir)) {
            file = list.filter(p -> p.getFileName().toString().endsWith(SUMMARY_SUFFIX)).sorted().findFirst()
                    .orElse(null);
        }
        if (file == null) return java.util.Optional.empty();
        JsonNode settings = JSON.readTree(file.toFile()).path("settings");
        return settings.isObject() ? java.util.Optional.of(settings) : java.util.Optional.empty();
    }

    private static void fromSummary(JsonNode s, Map<String, String> out, boolean withLoad) {
        out.put("model", text(s, "model"));
        out.put("endpoint", text(s, "endpoint"));
        out.put("llm api", text(s, "llm_api"));
        if (withLoad) {
            String openLoop = text(s.path("metadata"), "llmperf4j_load");
            String concurrency = text(s, "num_concurrent_requests");
            out.put("load", openLoop != null ? openLoop : concurrency == null ? null : "concurrency " + concurrency);
        }
        if (s.has("mean_input_tokens")) {
            out.put("token shape", "input " + text(s, "mean_input_tokens") + "±" + text(s, "stddev_input_tokens")
                    + ", output " + text(s, "mean_output_tokens") + "±" + text(s, "stddev_output_tokens"));
        }
        out.put("tokenizer", text(s, "tokenizer"));
        out.put("prompt mode", text(s, "prompt_mode"));
        JsonNode sampling = s.path("additional_sampling_params");
        out.put("sampling params (max_tokens source)", sampling.isMissingNode() ? null : sampling.toString());
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.path(field);
        return v.isMissingNode() || v.isNull() ? null : v.asText();
    }
}

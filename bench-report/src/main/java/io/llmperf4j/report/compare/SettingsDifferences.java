package io.llmperf4j.report.compare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmperf4j.report.output.JmhFile;
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
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The settings two compared folders ran with that differ, read from their summaries: model, endpoint, LLM API,
 * load (concurrency, or the open loop's description), token shape, tokenizer, prompt mode, the extra sampling
 * parameters (where a fixed max_tokens comes from), streaming ({@code --no-stream}), connection mode and warmup
 * (each changes TTFT by itself), and whether the endpoint was llmperf4j's embedded simulated server
 * ({@code simulated}; not known for files from before it was recorded). Iterations keep no summary: their model and load come from
 * their sweep file or JMH file, their iterations and forks and the other settings from their JMH file's params (an
 * older JMH file has none of those: the token shape's means then come from the file names, and {@link #unrecorded}
 * names the rest). compare still compares them (users compare server configurations on purpose), but says first
 * that a delta may come from the settings rather than the server. A setting one side does not record is left out; an unreadable
 * summary gives no lines.
 */
public final class SettingsDifferences {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** llmperf's base name, {@code <model>_<mean input tokens>_<mean output tokens>}. */
    private static final String CLOSED_LOOP = "closed loop, ";
    private static final Pattern MEANS_IN_BASE = Pattern.compile(".*_(\\d+)_(\\d+)");

    private SettingsDifferences() {
    }

    /** One line per differing setting, e.g. "differs: load: concurrency 6 vs concurrency 1" (baseline first); empty when none. */
    public static List<String> between(Path baseline, Path candidate) {
        Map<String, String> a = settingsOf(baseline);
        Map<String, String> b = settingsOf(candidate);
        meansOnly(a, b);
        meansOnly(b, a);
        List<String> lines = new ArrayList<>();
        for (Map.Entry<String, String> e : a.entrySet()) {
            String other = b.get(e.getKey());
            if (other != null && !Objects.equals(e.getValue(), other)) {
                lines.add("differs: " + e.getKey() + ": " + e.getValue() + " vs " + other);
            }
        }
        return lines;
    }

    /**
     * An iterations folder written before its JMH file recorded the settings knows the token shape's means alone (from
     * its file names): the other side's token shape is then compared by its means too.
     */
    private static void meansOnly(Map<String, String> meansSide, Map<String, String> other) {
        String shape = other.get("token shape");
        if (meansSide.containsKey("token shape (means)") && shape != null) {
            other.remove("token shape");
            other.put("token shape (means)", shape.replaceAll("±\\d+", ""));
        }
    }

    /** The comparable settings of a results folder or file, in print order; empty when none can be read. */
    static Map<String, String> settingsOf(Path path) {
        Map<String, String> out = new LinkedHashMap<>();
        try {
            ResultsFolder folder = FolderComparison.iterationsOfSweep(ResultsFolder.detect(path));
            switch (folder.kind()) {
                case RUN -> {
                    Optional<JsonNode> summary = summaryDocumentIn(folder.dir()); // read once for both
                    summary.map(SettingsDifferences::settingsIn).ifPresent(s -> fromSummary(s, out, true));
                    summary.ifPresent(s -> ofRun(s, out));
                }
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
                case ITERATIONS -> fromIterations(folder, out);
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

    /**
     * An iterations folder keeps no summary: the model and the load come from {@code <base>_sweep.json} (a sweep run
     * with {@code --iterations}; its load without the harness part) or else from {@code <base>_jmh.json}'s params,
     * the iterations and forks from {@code <base>_jmh.json}. The other settings come from the JMH file's params, which
     * record them as the summary does ({@link JmhFile#SETTINGS_KEYS}); a folder written before they were recorded
     * gives the token shape's means from the file names ({@code <model>_<mean input>_<mean output>}, llmperf's base
     * name) and nothing more ({@link #unrecorded}).
     */
    private static void fromIterations(ResultsFolder folder, Map<String, String> out) throws IOException {
        Path sweepFile = folder.dir().resolve(folder.base() + SweepFiles.JSON_SUFFIX);
        SweepFiles.Document sweep = Files.isRegularFile(sweepFile) ? SweepFiles.read(sweepFile) : null;
        List<JmhFile.Entry> jmh = jmhOf(folder);
        JmhFile.Entry first = jmh.isEmpty() ? null : jmh.get(0);
        if (first != null && first.recordsSettings()) {
            ObjectNode settings = JSON.createObjectNode();
            first.params().forEach(settings::put);
            String sampling = first.params().get("additional_sampling_params");
            if (sampling != null) settings.set("additional_sampling_params", JSON.readTree(sampling));
            fromSummary(settings, out, false);
        }
        putFirst(out, "model", sweep != null ? sweep.model() : first == null ? null : first.params().get("model"));
        if (sweep != null && sweep.load() != null) {
            int harnessPart = sweep.load().indexOf("; ");
            out.put("load", harnessPart < 0 ? sweep.load() : sweep.load().substring(0, harnessPart));
        } else {
            List<String> loads = new ArrayList<>();
            for (JmhFile.Entry entry : jmh) {
                List<String> params = new ArrayList<>();
                entry.load().forEach((k, v) -> params.add(k + " " + v));
                String load = String.join(", ", params);
                if (!load.isEmpty() && !loads.contains(load)) loads.add(load);
            }
            out.put("load", loads.isEmpty() ? null : String.join("; ", loads));
        }
        Matcher means = MEANS_IN_BASE.matcher(folder.base());
        if (!out.containsKey("token shape") && means.matches()) {
            out.put("token shape (means)", "input " + means.group(1) + ", output " + means.group(2));
        }
        if (first != null) {
            // as the run's load line words it: "1 warmup + 3 measurement iterations of 2 s, 2 forks"
            int forks = first.forks();
            String time = first.measurementTime();
            out.put("iterations", first.warmupIterations() + " warmup + " + first.measurementIterations()
                    + " measurement iterations of " + time
                    + (Objects.equals(time, first.warmupTime()) ? "" : " (warmup " + first.warmupTime() + ")")
                    + ", " + forks + (forks == 1 ? " fork" : " forks"));
        }
    }

    /** {@code <base>_jmh.json}'s entries beside an iterations folder's CSV; empty when there is none. */
    private static List<JmhFile.Entry> jmhOf(ResultsFolder folder) throws IOException {
        Path file = folder.dir().resolve(folder.base() + JmhFile.SUFFIX);
        return Files.isRegularFile(file) ? JmhFile.read(file) : List.of();
    }

    /**
     * What could not be checked: an iterations folder written before {@code <base>_jmh.json} recorded the run's
     * settings has no endpoint, LLM API, tokenizer, prompt mode or sampling parameters. Empty for runs and sweeps,
     * whose summaries record them, and for iterations folders that record them.
     */
    public static Optional<String> unrecorded(Path baseline, Path candidate) {
        for (Path path : List.of(baseline, candidate)) {
            try {
                ResultsFolder folder = FolderComparison.iterationsOfSweep(ResultsFolder.detect(path));
                if (folder.kind() == ResultsFolder.Kind.ITERATIONS
                        && jmhOf(folder).stream().noneMatch(JmhFile.Entry::recordsSettings)) {
                    return Optional.of(path + " is an iterations folder written before " + JmhFile.SUFFIX
                            + " recorded the run's settings: its endpoint, LLM API, tokenizer, prompt mode and "
                            + "sampling parameters (and the token shape's spread) were not checked");
                }
            } catch (IOException | RuntimeException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    private static void putFirst(Map<String, String> out, String key, String value) {
        if (value == null) return;
        Map<String, String> copy = new LinkedHashMap<>(out);
        out.clear();
        out.put(key, value);
        copy.remove(key);
        out.putAll(copy);
    }

    private static Optional<JsonNode> summaryIn(Path dir) throws IOException {
        return summaryDocumentIn(dir).map(SettingsDifferences::settingsIn);
    }

    /** A summary's {@code settings} object; null when it has none. */
    private static JsonNode settingsIn(JsonNode summary) {
        JsonNode settings = summary.path("settings");
        return settings.isObject() ? settings : null;
    }

    private static Optional<JsonNode> summaryDocumentIn(Path dir) throws IOException {
        return Files.isDirectory(dir) ? StoppedRuns.summaryIn(dir) : Optional.empty();
    }

    /**
     * A run's planned request count and where its load came from (this machine, or a cluster of load workers, whose
     * clocks, connections and client overhead differ): each changes throughput and the tail by itself.
     */
    private static void ofRun(JsonNode summary, Map<String, String> out) {
        JsonNode planned = summary.path("settings").path("max_num_completed_requests");
        out.put("planned requests", planned.isMissingNode() || planned.isNull() ? null : planned.asText());
        if (!summary.has("distributed")) return; // a summary from before it was recorded
        JsonNode cluster = summary.path("distributed");
        int workers = cluster.path("workers").size();
        out.put("load generated by", cluster.isObject() ? "a cluster of " + workers + " load worker"
                + (workers == 1 ? "" : "s") : "a single machine");
    }

    private static void fromSummary(JsonNode s, Map<String, String> out, boolean withLoad) {
        out.put("model", text(s, "model"));
        out.put("endpoint", text(s, "endpoint"));
        // a simulator run may carry a real model's name and a loopback endpoint as a local server's: said apart
        String simulated = text(s, "simulated");
        out.put("simulated", simulated == null ? null : Boolean.parseBoolean(simulated)
                ? "yes (llmperf4j's embedded simulated server)" : "no (a real endpoint)");
        out.put("llm api", text(s, "llm_api"));
        if (!withLoad) {
            out.putIfAbsent("load", null); // its place, as a run's; the caller fills it from its own file
        } else {
            String openLoop = text(s.path("metadata"), "llmperf4j_load");
            String concurrency = text(s, "num_concurrent_requests");
            // a closed loop with a warmup describes its load ("closed loop, concurrency 4") where a plain one echoes
            // llmperf's concurrency alone: the same load, so compared in the plain words
            if (openLoop != null && openLoop.startsWith(CLOSED_LOOP)) openLoop = openLoop.substring(CLOSED_LOOP.length());
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
        // these change TTFT themselves: a response in one piece has its TTFT at its end, a connection opened per
        // request puts the connect in every TTFT, a warmup leaves the server's caches warm (or not)
        String stream = text(s, "stream");
        out.put("streaming", stream == null ? null : Boolean.parseBoolean(stream) ? "streamed" : "--no-stream");
        out.put("connection mode", text(s, "connection_mode"));
        if (s.has("metadata")) { // a summary's; a run without a warmup records none
            String warmup = text(s.path("metadata"), "llmperf4j_warmup");
            out.put("warmup", warmup == null ? "none" : warmup);
        }
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.path(field);
        return v.isMissingNode() || v.isNull() ? null : v.asText();
    }
}

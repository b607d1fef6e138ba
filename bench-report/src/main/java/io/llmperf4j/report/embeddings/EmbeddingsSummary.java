package io.llmperf4j.report.embeddings;

import io.llmperf4j.model.PrintableText;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.python.PythonJsonWriter;
import io.llmperf4j.report.stats.PandasStats;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The summary of an embeddings run (or of one level of a sweep): request latency (E2E, successful requests)
 * p50/p90/p99 and mean in seconds (pandas' linear quantiles), inputs/s and input tokens/s (successful requests over
 * the run's measured duration; tokens from {@code usage.prompt_tokens}, else the workload's sampled count), and the
 * errors by kind. Written as {@code <base>_embeddings_summary.json} (Python json.dump layout, null for a figure
 * without a value: never bare NaN, which is not JSON) and
 * {@code <base>_embeddings.csv} (a row per request).
 */
public record EmbeddingsSummary(List<RequestRecord> records, int batchSize, long durationNanos, int completed,
                                int errors, double p50, double p90, double p99, double mean, long inputTokens,
                                boolean tokensFromUsage, Map<String, Integer> errorKinds) {

    /** The files {@link #write} wrote. */
    public record Written(Path summaryJson, Path csv) {
    }

    /**
     * What the summary file echoes about the run.
     *
     * @param model             the model id
     * @param endpoint          the URL requests went to (no key)
     * @param concurrency       the closed loop's concurrency, or the open loop's cap (0: none)
     * @param meanInputTokens   the workload's mean input length
     * @param stddevInputTokens the workload's standard deviation of the input length
     * @param load              the load in words, e.g. "closed loop, concurrency 4"
     * @param metadata          --metadata, appended last
     */
    public record Settings(String model, String endpoint, int concurrency, int meanInputTokens,
                           int stddevInputTokens, String load, Map<String, String> metadata) {
        public Settings {
            Objects.requireNonNull(model, "model");
            Objects.requireNonNull(load, "load");
            metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata)); // in the order given
        }
    }

    public EmbeddingsSummary {
        records = List.copyOf(records);
        errorKinds = Collections.unmodifiableMap(new TreeMap<>(errorKinds)); // by name, as printed
    }

    /** @param durationNanos the measured window, the denominator of the rates */
    public static EmbeddingsSummary of(List<RequestRecord> records, int batchSize, long durationNanos) {
        double[] latencies = records.stream().filter(RequestRecord::succeeded)
                .mapToDouble(r -> r.e2eNanos() / 1e9).sorted().toArray();
        long tokens = 0;
        boolean fromUsage = true;
        Map<String, Integer> kinds = new TreeMap<>();
        for (RequestRecord r : records) {
            if (r.succeeded()) {
                if (r.usagePromptTokens() != null) {
                    tokens += r.usagePromptTokens();
                } else {
                    tokens += r.numberInputTokens();
                    fromUsage = false;
                }
            } else {
                kinds.merge(r.failure().kind().name(), 1, Integer::sum);
            }
        }
        return new EmbeddingsSummary(records, batchSize, durationNanos, latencies.length,
                records.size() - latencies.length, PandasStats.quantile(latencies, 0.50),
                PandasStats.quantile(latencies, 0.90), PandasStats.quantile(latencies, 0.99),
                PandasStats.mean(latencies), tokens, fromUsage, kinds);
    }

    /** The input tokens one request counts in {@link #tokensPerSecond()}: usage when the server sent it. */
    public static int inputTokens(RequestRecord r) {
        return r.usagePromptTokens() != null ? r.usagePromptTokens() : r.numberInputTokens();
    }

    public double durationSeconds() {
        return durationNanos / 1e9;
    }

    public double inputsPerSecond() {
        return durationNanos <= 0 ? 0 : (double) completed * batchSize / durationSeconds();
    }

    public double tokensPerSecond() {
        return durationNanos <= 0 ? 0 : inputTokens / durationSeconds();
    }

    public double errorRate() {
        return records.isEmpty() ? 0.0 : (double) errors / records.size();
    }

    /** The printed block. */
    public String render() {
        StringBuilder s = new StringBuilder();
        s.append("Embeddings results\n");
        s.append(String.format(Locale.ROOT, "Requests: %d (%d completed, %d errors), %d inputs per request%n",
                records.size(), completed, errors, batchSize));
        s.append(String.format(Locale.ROOT, "Latency (s): p50 %s, p90 %s, p99 %s, mean %s%n",
                fixed(p50, 4), fixed(p90, 4), fixed(p99, 4), fixed(mean, 4)));
        s.append(String.format(Locale.ROOT, "Throughput: %.2f inputs/s, %.2f input tokens/s (tokens from %s)%n",
                inputsPerSecond(), tokensPerSecond(), tokensFromUsage ? "usage.prompt_tokens" : "the workload"));
        if (!errorKinds.isEmpty()) s.append("Errors by kind: ").append(errorKinds).append('\n');
        return s.toString();
    }

    /** Fixed decimals, or "-" for a figure without a value (no success): the console's way, as the token table's. */
    static String fixed(double value, int decimals) {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%." + decimals + "f", value) : "-";
    }

    /**
     * The value, or null for NaN (no success to take a latency of): a figure without a value is null in the tool's
     * own JSON, as in its {@code _llmperf4j_summary.json}; bare NaN is not JSON (only llmperf's files keep it).
     */
    private static Double finiteOrNull(double value) {
        return Double.isFinite(value) ? value : null;
    }

    /**
     * Writes the summary JSON and the per-request CSV into {@code dir}, named from {@code base}. A latency without a
     * value (no request succeeded) is null in the JSON.
     */
    public Written write(Path dir, String base, Settings settings, boolean timedOut) throws IOException {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("model", settings.model());
        json.put("llm_api", "embeddings");
        json.put("endpoint", settings.endpoint());
        json.put("embedding_batch_size", batchSize);
        json.put("mean_input_tokens", settings.meanInputTokens());
        json.put("stddev_input_tokens", settings.stddevInputTokens());
        json.put("num_concurrent_requests", settings.concurrency());
        json.put("load", settings.load());
        json.put("num_requests", records.size());
        json.put("num_completed_requests", completed);
        json.put("num_errors", errors);
        json.put("error_rate", errorRate());
        json.put("errors_by_kind", new LinkedHashMap<>(errorKinds));
        json.put("latency_s_p50", finiteOrNull(p50));
        json.put("latency_s_p90", finiteOrNull(p90));
        json.put("latency_s_p99", finiteOrNull(p99));
        json.put("latency_s_mean", finiteOrNull(mean));
        json.put("inputs_per_s", inputsPerSecond());
        json.put("input_tokens_per_s", tokensPerSecond());
        json.put("input_tokens_total", inputTokens);
        json.put("input_tokens_source", tokensFromUsage ? "usage" : "workload");
        json.put("duration_s", durationSeconds());
        json.put("timed_out", timedOut);
        json.putAll(settings.metadata());
        Files.createDirectories(dir);
        Path summary = dir.resolve(base + "_embeddings_summary.json");
        Files.writeString(summary, PythonJsonWriter.toJson(json), StandardCharsets.UTF_8);

        Path csv = dir.resolve(base + "_embeddings.csv");
        try (Writer w = Files.newBufferedWriter(csv, StandardCharsets.UTF_8);
             CSVPrinter printer = new CSVPrinter(w, CSVFormat.DEFAULT.builder().setHeader("request_index",
                     "client_request_id", "start_epoch_micros", "e2e_latency_s", "inputs", "sampled_input_tokens",
                     "usage_prompt_tokens", "error_kind", "error_code", "error_message").build())) {
            for (RequestRecord r : records) {
                printer.printRecord(r.promptIndex(), r.clientRequestId(), r.startEpochMicros(),
                        String.format(Locale.ROOT, "%.6f", r.e2eNanos() / 1e9), batchSize, r.numberInputTokens(),
                        r.usagePromptTokens() == null ? "" : r.usagePromptTokens(),
                        r.succeeded() ? "" : r.failure().kind().name(), r.succeeded() ? "" : r.failure().code(),
                        r.succeeded() ? "" : PrintableText.of(r.failure().message())); // one printable line
            }
        }
        return new Written(summary, csv);
    }
}

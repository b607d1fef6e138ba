package io.llmperf4j.engine.harness;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JMH's JSON result format (an array with one element per benchmark and params), so JMH tooling (jmh-visualizer,
 * jmh-benchmark-action, …) can read harness results. {@code jmhVersion} is "llmperf4j"; the element's mode is
 * "thrpt", its primary metric's (output tok/s); secondaries are requests_per_s, ttft_ms and tpot_ms. As JMH, each
 * metric's {@code scorePercentiles} are percentiles of its per-iteration scores, the values of its {@code rawData}.
 * Keys JMH does not write, for readers that know them: each metric's own {@code mode} (JMH has one per element:
 * "avgt" for ttft_ms and tpot_ms, which are mean times, "thrpt" for the rates) and, for ttft_ms and tpot_ms,
 * {@code perRequestPercentiles} (the same ranks over every measured request, numpy linear as llmperf4j's other
 * percentiles); per element, {@code measuredRequests}:
 * how many requests ended in the measured iterations, {@code succeeded} and {@code failed}. NaN is written as the
 * string "NaN", as JMH does; a window without a success has no TTFT or TPOT score and is left out of
 * {@code rawData}. A result whose every measured request failed has no score: the rates' {@code score},
 * {@code scoreError}, {@code scoreConfidence} and {@code scorePercentiles} are "NaN", as TTFT's and TPOT's are then
 * (JMH drops a failed benchmark from its JSON altogether; the element is kept so the file says what happened).
 * Written with Jackson from records; no hand-made JSON.
 */
public final class JmhJsonFormat {

    public static final String JMH_VERSION = "llmperf4j";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private JmhJsonFormat() {
    }

    /** One element of the array. */
    @JsonPropertyOrder({"jmhVersion", "benchmark", "mode", "threads", "forks", "jdkVersion", "vmName", "vmVersion",
            "warmupIterations", "warmupTime", "warmupBatchSize", "measurementIterations", "measurementTime",
            "measurementBatchSize", "params", "primaryMetric", "secondaryMetrics", "measuredRequests"})
    public record Entry(String jmhVersion, String benchmark, String mode, int threads, int forks, String jdkVersion,
                        String vmName, String vmVersion, int warmupIterations, String warmupTime,
                        int warmupBatchSize, int measurementIterations, String measurementTime,
                        int measurementBatchSize, Map<String, String> params, Metric primaryMetric,
                        Map<String, Metric> secondaryMetrics, MeasuredRequests measuredRequests) {
    }

    /** llmperf4j's own: the requests that ended in the measured iterations (fork-end cancellations not counted). */
    public record MeasuredRequests(int succeeded, int failed) {
    }

    /** A metric as JMH writes it, then llmperf4j's own keys (perRequestPercentiles only for latencies). */
    @JsonPropertyOrder({"score", "scoreError", "scoreConfidence", "scorePercentiles", "scoreUnit", "rawData", "mode",
            "perRequestPercentiles"})
    public record Metric(double score, double scoreError, double[] scoreConfidence,
                         Map<String, Double> scorePercentiles, String scoreUnit, List<List<Double>> rawData,
                         String mode,
                         @JsonInclude(JsonInclude.Include.NON_NULL) Map<String, Double> perRequestPercentiles) {
    }

    public static List<Entry> entries(List<HarnessResult> results) {
        return results.stream().map(JmhJsonFormat::entry).toList();
    }

    public static String toJson(List<HarnessResult> results) {
        try {
            return JSON.writeValueAsString(entries(results));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes the array to {@code file}, replacing it. */
    public static void write(List<HarnessResult> results, Path file) throws IOException {
        Files.writeString(file, toJson(results) + "\n");
    }

    static Entry entry(HarnessResult r) {
        Map<String, Metric> secondary = new LinkedHashMap<>();
        r.secondary().forEach((label, m) -> secondary.put(label, metric(m)));
        HarnessSettings s = r.settings();
        return new Entry(JMH_VERSION, r.benchmark(), r.primary().mode(), r.threads(), s.forks(),
                System.getProperty("java.version"), System.getProperty("java.vm.name"),
                System.getProperty("java.vm.version"), s.warmup().count(), s.warmup().timeText(), 1,
                s.measurement().count(), s.measurement().timeText(), 1, r.params(), metric(r.primary()), secondary,
                new MeasuredRequests(r.requestsCompleted(), r.requestsFailed()));
    }

    private static Metric metric(MetricResult m) {
        return new Metric(m.score(), m.scoreError(), m.statistics().confidenceInterval(), m.percentiles(), m.unit(),
                m.rawData(), m.mode(), m.requestPercentiles());
    }
}

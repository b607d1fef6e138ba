package io.llmperf4j.report.llmperf;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.report.python.PythonRepr;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The numbers of llmperf's {@code metrics_summary}, computed once and shared by the summary file
 * ({@link LlmperfSummaryDocument}) and the console block ({@link LlmperfConsoleReport}).
 *
 * <p>Definitions (llmperf HEAD): the six metric statistics cover successful requests only (null error_code);
 * {@code num_requests_started} counts every recorded request, failures included;
 * {@code mean_output_throughput_token_per_s} = Σ output tokens of successful requests / run seconds;
 * {@code num_completed_requests_per_min} = successful requests / run seconds × 60.
 *
 * <p>When nothing succeeded llmperf crashes (an empty DataFrame, or a ZeroDivisionError before that); we still
 * summarise, with what pandas gives for an empty series: every metric statistic NaN (min and max too, as
 * floats), throughput and completed-per-minute {@code 0.0}, completed {@code 0}. With no record at all the error
 * rate is the integer {@code 0} (llmperf's {@code ... if len(metrics) else 0}) and the frequency {@code "{}"}.
 *
 * @param settings                       the run's settings
 * @param requests                       llmperf's per-request metrics, in completion order
 * @param metrics                        statistics per metric, in llmperf's order
 * @param numRequestsStarted             recorded requests, failures included
 * @param errorRate                      errors / recorded, a {@code Double}; the {@code Long} 0 without records
 * @param numberErrors                   failed requests
 * @param errorCodeFrequency             Python {@code str()} of the error-code counts, e.g. {@code "{500: 3, -1: 1}"}
 * @param meanOutputThroughputTokenPerS  Σ successful output tokens / run seconds
 * @param numCompletedRequests           successful requests
 * @param numCompletedRequestsPerMin     successful requests per minute of run time
 * @param timestampEpochS                the summary's timestamp, epoch seconds
 */
public record LlmperfSummary(
        BenchmarkSettings settings,
        List<LlmperfRequestMetrics> requests,
        Map<LlmperfMetric, MetricSummary> metrics,
        int numRequestsStarted,
        Number errorRate,
        int numberErrors,
        String errorCodeFrequency,
        double meanOutputThroughputTokenPerS,
        int numCompletedRequests,
        double numCompletedRequestsPerMin,
        long timestampEpochS) {

    private static final double NANOS_PER_SECOND = 1e9;
    private static final double SECONDS_PER_MINUTE = 60;

    public LlmperfSummary {
        Objects.requireNonNull(settings, "settings");
        requests = List.copyOf(requests);
        metrics = Collections.unmodifiableMap(new EnumMap<>(metrics));
        Objects.requireNonNull(errorRate, "errorRate");
        Objects.requireNonNull(errorCodeFrequency, "errorCodeFrequency");
    }

    /**
     * Summarises a run. The duration is the run's monotonic window ({@link BenchmarkRun#durationNanos()}), the
     * timestamp its wall-clock end in whole seconds (llmperf takes {@code int(time.time())} right after the run).
     */
    public static LlmperfSummary of(BenchmarkRun run) {
        List<LlmperfRequestMetrics> requests = run.records().stream().map(LlmperfRequestMetrics::from).toList();
        return of(run.settings(), requests, run.durationNanos() / NANOS_PER_SECOND,
                Math.floorDiv(run.endEpochMillis(), 1000L));
    }

    /**
     * Summarises per-request metrics already computed (for example read back from an individual-responses
     * file).
     *
     * @param durationS       llmperf's {@code end_time - start_time}
     * @param timestampEpochS the summary's timestamp
     */
    public static LlmperfSummary of(BenchmarkSettings settings, List<LlmperfRequestMetrics> requests,
                                    double durationS, long timestampEpochS) {
        List<LlmperfRequestMetrics> successful = requests.stream().filter(LlmperfRequestMetrics::succeeded).toList();

        Map<LlmperfMetric, MetricSummary> metrics = new EnumMap<>(LlmperfMetric.class);
        for (LlmperfMetric metric : LlmperfMetric.values()) {
            double[] values = successful.stream().mapToDouble(r -> r.value(metric).doubleValue()).toArray();
            metrics.put(metric, MetricSummary.of(metric, values, isIntegerColumn(requests, metric)));
        }

        int started = requests.size();
        int errors = started - successful.size();
        Number errorRate = started > 0 ? (Number) ((double) errors / started) : (Number) 0L;
        long outputTokens = successful.stream().mapToLong(LlmperfRequestMetrics::numberOutputTokens).sum();
        int completed = successful.size();
        return new LlmperfSummary(settings, requests, metrics, started, errorRate, errors,
                PythonRepr.ofIntDict(errorCodeCounts(requests)), outputTokens / durationS, completed,
                completed / durationS * SECONDS_PER_MINUTE, timestampEpochS);
    }

    /** The statistics of one metric. */
    public MetricSummary metric(LlmperfMetric metric) {
        return metrics.get(metric);
    }

    /**
     * pandas types a DataFrame column int64 only when every row (failures included, since the frame is built
     * before filtering) holds a Python int; an int64 column's min/max come out as strings in the JSON.
     */
    private static boolean isIntegerColumn(List<LlmperfRequestMetrics> requests, LlmperfMetric metric) {
        return !requests.isEmpty() && requests.stream().allMatch(r -> r.value(metric) instanceof Long);
    }

    /**
     * Counts per error code as {@code dict(series.value_counts())} orders them: most frequent first, ties in
     * order of first occurrence. Keys are ints (pandas would show floats such as {@code 500.0} once a null code
     * shares the column, a case llmperf never reaches).
     */
    private static Map<Integer, Long> errorCodeCounts(List<LlmperfRequestMetrics> requests) {
        Map<Integer, Long> firstSeenOrder = new LinkedHashMap<>();
        for (LlmperfRequestMetrics request : requests) {
            if (!request.succeeded()) firstSeenOrder.merge(request.errorCode(), 1L, Long::sum);
        }
        List<Map.Entry<Integer, Long>> entries = new ArrayList<>(firstSeenOrder.entrySet());
        entries.sort(Map.Entry.<Integer, Long>comparingByValue().reversed()); // List.sort is stable
        Map<Integer, Long> byFrequency = new LinkedHashMap<>();
        entries.forEach(e -> byFrequency.put(e.getKey(), e.getValue()));
        return byFrequency;
    }
}

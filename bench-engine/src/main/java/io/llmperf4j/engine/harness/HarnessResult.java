package io.llmperf4j.engine.harness;

import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.model.RequestRecord;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * A harness run at one load point: its forks and iterations, and the metrics JMH-style. The primary metric is output
 * tokens per second; secondaries are requests per second, TTFT and TPOT. When every measured request failed there
 * is no score: the rates' statistics are empty (score, error and interval NaN, Cnt 0), as TTFT's and TPOT's are then,
 * rather than a confident 0 ± 0; each iteration's own rate (0) stays in its raw data.
 *
 * @param benchmark the benchmark's name (JMH's "benchmark")
 * @param params    JMH params: the load's (concurrency or rate …) then the user's, in order
 * @param settings  iterations and forks
 * @param load      the load point
 * @param forks     the forks that ran
 * @param aborted   a stop ended the run early
 */
public record HarnessResult(String benchmark, Map<String, String> params, HarnessSettings settings,
                            LoadSettings load, List<ForkResult> forks, boolean aborted) {

    public static final String PRIMARY_LABEL = "output_tok_per_s";
    public static final String REQUESTS_LABEL = "requests_per_s";
    public static final String TTFT_LABEL = "ttft_ms";
    public static final String TPOT_LABEL = "tpot_ms";

    public HarnessResult {
        Objects.requireNonNull(benchmark, "benchmark");
        params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(load, "load");
        forks = List.copyOf(forks);
    }

    /** Output tokens per second. */
    public MetricResult primary() {
        return throughput(PRIMARY_LABEL, "tok/s", IterationResult::outputTokensPerSecond);
    }

    /** Successful requests per second. */
    public MetricResult requestsPerSecond() {
        return throughput(REQUESTS_LABEL, "req/s", IterationResult::requestsPerSecond);
    }

    /** Score per iteration: mean TTFT of its successes; percentiles over those scores, and over every request. */
    public MetricResult ttftMillis() {
        return latency(TTFT_LABEL, IterationResult::meanTtftMillis, IterationResult::ttftMillis);
    }

    /** Score per iteration: mean TPOT of its successes; percentiles over those scores, and over every request. */
    public MetricResult tpotMillis() {
        return latency(TPOT_LABEL, IterationResult::meanTpotMillis, IterationResult::tpotMillis);
    }

    /** Secondary metrics by label, in a stable order. */
    public Map<String, MetricResult> secondary() {
        Map<String, MetricResult> m = new LinkedHashMap<>();
        for (MetricResult r : List.of(requestsPerSecond(), ttftMillis(), tpotMillis())) m.put(r.label(), r);
        return m;
    }

    /** Successful requests that ended in the measured iterations, all forks. */
    public int requestsCompleted() {
        return measurementIterations().stream().mapToInt(IterationResult::requestsCompleted).sum();
    }

    /** Failed requests that ended in the measured iterations, all forks (cancellations at a fork's end are not). */
    public int requestsFailed() {
        return measurementIterations().stream().mapToInt(IterationResult::requestsFailed).sum();
    }

    /** Requests ended in the measured iterations and every one failed: no score. */
    public boolean everyRequestFailed() {
        return requestsFailed() > 0 && requestsCompleted() == 0;
    }

    /**
     * The requests the measured iterations count, fork by fork ({@link #requestsCompleted} + {@link #requestsFailed}
     * of them): what the run's failure gate and error rate judge.
     */
    public List<RequestRecord> measuredRecords() {
        return forks.stream().flatMap(f -> IterationSlicer.measuredRecords(f).stream()).toList();
    }

    /** Every measurement iteration, fork by fork. */
    public List<IterationResult> measurementIterations() {
        return forks.stream().flatMap(f -> f.measurement().stream()).toList();
    }

    /** JMH's "threads": the concurrency (closed loop), the cap (open loop), or 0 for an uncapped open loop. */
    public int threads() {
        if (load instanceof ClosedLoopSettings c) return c.concurrency();
        if (load instanceof OpenLoopSettings o) return o.maxConcurrency().orElse(0);
        return 0;
    }

    private MetricResult throughput(String label, String unit, ToDoubleFunction<IterationResult> score) {
        List<List<Double>> raw = raw(score);
        // a rate of 0 from requests that all failed is no measurement of the server's pace: no score
        ScoreStatistics stats = everyRequestFailed() ? ScoreStatistics.of() : ScoreStatistics.of(flatten(raw));
        return new MetricResult(label, unit, MetricResult.THROUGHPUT, stats, raw, MetricResult.percentilesOf(stats),
                null);
    }

    private MetricResult latency(String label, ToDoubleFunction<IterationResult> score,
                                 Function<IterationResult, double[]> samples) {
        List<List<Double>> raw = raw(score);
        ScoreStatistics stats = ScoreStatistics.of(flatten(raw));
        double[] all = measurementIterations().stream().map(samples).flatMapToDouble(Arrays::stream).toArray();
        return new MetricResult(label, "ms", MetricResult.AVERAGE_TIME, stats, raw, MetricResult.percentilesOf(stats),
                MetricResult.requestPercentilesOf(all));
    }

    private List<List<Double>> raw(ToDoubleFunction<IterationResult> score) {
        List<List<Double>> raw = new ArrayList<>();
        for (ForkResult f : forks) {
            // a window without a success has no TTFT or TPOT score: left out, as the statistics leave it out (a
            // "NaN" string in rawData is no number to the JMH tools that read it)
            raw.add(f.measurement().stream().map(i -> score.applyAsDouble(i)).filter(v -> !Double.isNaN(v)).toList());
        }
        return raw;
    }

    private static double[] flatten(List<List<Double>> raw) {
        return raw.stream().flatMap(List::stream).mapToDouble(Double::doubleValue).toArray();
    }
}

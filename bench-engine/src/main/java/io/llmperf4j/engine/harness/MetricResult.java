package io.llmperf4j.engine.harness;

import io.llmperf4j.model.Percentiles;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A metric across measurement iterations, as JMH reports one: score ± error over the per-iteration scores, raw
 * scores per fork, and the percentiles of those same scores.
 *
 * @param label              e.g. "output_tok_per_s", "ttft_ms"
 * @param unit               e.g. "tok/s", "ms"
 * @param mode               JMH's short label for what the score is: {@value #THROUGHPUT} for a rate (tok/s, req/s),
 *                           {@value #AVERAGE_TIME} for a mean time (TTFT, TPOT: each iteration's mean over its
 *                           requests)
 * @param statistics         over every measurement iteration's score, all forks pooled
 * @param rawData            per fork, its iterations' scores
 * @param percentiles        JMH's ranks ("0.0" … "100.0") to values, over the iteration scores (rawData's values), as
 *                           JMH's {@code scorePercentiles} in its throughput and average-time modes
 * @param requestPercentiles for a latency, the same ranks over every measured request (not JMH's), by llmperf4j's
 *                           one percentile definition (numpy linear, {@link Percentiles}) as the summary and sweep
 *                           rows compute them over the same requests; else null
 */
public record MetricResult(String label, String unit, String mode, ScoreStatistics statistics,
                           List<List<Double>> rawData, Map<String, Double> percentiles,
                           Map<String, Double> requestPercentiles) {

    /** JMH's throughput mode. */
    public static final String THROUGHPUT = "thrpt";
    /** JMH's average-time mode. */
    public static final String AVERAGE_TIME = "avgt";

    /** JMH's percentile ranks, in its order. */
    public static final List<Double> PERCENTILE_RANKS =
            List.of(0.0, 50.0, 90.0, 95.0, 99.0, 99.9, 99.99, 99.999, 99.9999, 100.0);

    public MetricResult {
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(statistics, "statistics");
        rawData = rawData.stream().map(List::copyOf).toList();
        percentiles = Collections.unmodifiableMap(new LinkedHashMap<>(percentiles));
        requestPercentiles = requestPercentiles == null ? null
                : Collections.unmodifiableMap(new LinkedHashMap<>(requestPercentiles));
    }

    public double score() {
        return statistics.mean();
    }

    public double scoreError() {
        return statistics.error();
    }

    /** JMH's percentiles of {@code stats}, keyed "0.0", "50.0", … "100.0". */
    static Map<String, Double> percentilesOf(ScoreStatistics stats) {
        Map<String, Double> m = new LinkedHashMap<>();
        for (double rank : PERCENTILE_RANKS) m.put(Double.toString(rank), stats.percentile(rank));
        return m;
    }

    /**
     * The same ranks over every measured request's {@code values}, numpy linear ({@link Percentiles}), the definition
     * of the run's other percentiles: commons-math's (JMH's, for the iteration scores) read a sweep level's TTFT p90
     * 50.45 ms where its row said 48.33 over the same 40 requests, and its 99.0 was their max. NaN when empty.
     */
    static Map<String, Double> requestPercentilesOf(double[] values) {
        double[] sorted = Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted().toArray();
        Map<String, Double> m = new LinkedHashMap<>();
        for (double rank : PERCENTILE_RANKS) m.put(Double.toString(rank), Percentiles.ofSorted(sorted, rank));
        return m;
    }
}

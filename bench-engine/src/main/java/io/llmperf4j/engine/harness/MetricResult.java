package io.llmperf4j.engine.harness;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A metric across measurement iterations, as JMH reports one: score ± error over the per-iteration scores, raw
 * scores per fork, and percentiles.
 *
 * @param label       e.g. "output_tok_per_s", "ttft_ms"
 * @param unit        e.g. "tok/s", "ms"
 * @param statistics  over every measurement iteration's score, all forks pooled
 * @param rawData     per fork, its iterations' scores
 * @param percentiles JMH's ranks ("0.0" … "100.0") to values: over iteration scores for throughputs, over individual
 *                    requests for latencies (as JMH's sample mode)
 */
public record MetricResult(String label, String unit, ScoreStatistics statistics, List<List<Double>> rawData,
                           Map<String, Double> percentiles) {

    /** JMH's percentile ranks, in its order. */
    public static final List<Double> PERCENTILE_RANKS =
            List.of(0.0, 50.0, 90.0, 95.0, 99.0, 99.9, 99.99, 99.999, 99.9999, 100.0);

    public MetricResult {
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(statistics, "statistics");
        rawData = rawData.stream().map(List::copyOf).toList();
        percentiles = Collections.unmodifiableMap(new LinkedHashMap<>(percentiles));
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
}

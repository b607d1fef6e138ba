package io.llmperf4j.report.compare;

import java.util.Objects;

/**
 * The change of one statistic from the baseline run to the candidate run, in the metric's display unit.
 * Percentiles of per-request metrics are computed from the exact values with linear interpolation (numpy's
 * default, {@code PandasStats.quantile}).
 *
 * @param metric               which metric
 * @param stat                 which statistic
 * @param baseline             the baseline's value; NaN when it has no sample
 * @param candidate            the candidate's value; NaN when it has no sample
 * @param baselineCount        samples behind the baseline value
 * @param candidateCount       samples behind the candidate value
 * @param absoluteDelta        candidate − baseline
 * @param relativeDeltaPercent (candidate − baseline) / baseline × 100; NaN when the baseline is 0 or NaN
 * @param absoluteCi           bootstrap CI of the absolute delta; null for run-level metrics or fewer than two
 *                             samples on a side
 * @param relativeCi           bootstrap CI of the relative delta in percent; null likewise, or when a baseline
 *                             resample is 0
 */
public record MetricDelta(
        CompareMetric metric,
        CompareStat stat,
        double baseline,
        double candidate,
        int baselineCount,
        int candidateCount,
        double absoluteDelta,
        double relativeDeltaPercent,
        ConfidenceInterval absoluteCi,
        ConfidenceInterval relativeCi) {

    public MetricDelta {
        Objects.requireNonNull(metric, "metric");
        Objects.requireNonNull(stat, "stat");
    }

    /** The name fail-if rules use: {@code ttft_p90}, {@code output_throughput}. */
    public String ruleKey() {
        return stat == CompareStat.VALUE ? metric.key() : metric.key() + "_" + stat.key();
    }

    /** True when the absolute delta's CI excludes 0: the change is unlikely to be resampling noise. */
    public boolean significant() {
        return absoluteCi != null && !absoluteCi.contains(0.0);
    }
}

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

    /**
     * True when the absolute delta's CI excludes 0: the change is unlikely to be resampling noise. Never for a
     * zero-width CI ({@link #noVariationMeasured()}): it excludes 0 whenever the point estimate is not 0, only
     * because neither side varied, and a sample without variation gives no estimate of the noise to stand out from.
     */
    public boolean significant() {
        return absoluteCi != null && absoluteCi.hasWidth() && !absoluteCi.contains(0.0);
    }

    /** True when the CI has no width: every value the same on each side, so no noise was measured. */
    public boolean noVariationMeasured() {
        return absoluteCi != null && !absoluteCi.hasWidth();
    }

    /** The CI column of the console tables: the relative CI (else the absolute one) and its mark, or "-". */
    String ciText() {
        String mark = significant() ? " *" : noVariationMeasured() ? " no variation measured" : "";
        if (relativeCi != null) {
            return String.format(java.util.Locale.ROOT, "[%+.1f%%, %+.1f%%]%s", relativeCi.lower(), relativeCi.upper(),
                    mark);
        }
        if (absoluteCi != null) {
            return String.format(java.util.Locale.ROOT, "[%+.3f, %+.3f]%s", absoluteCi.lower(), absoluteCi.upper(),
                    mark);
        }
        return metric.perRequest() || Double.isNaN(absoluteDelta) ? "-" : "none (one per run)";
    }
}

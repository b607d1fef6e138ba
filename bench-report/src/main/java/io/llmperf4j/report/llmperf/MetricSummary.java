package io.llmperf4j.report.llmperf;

import io.llmperf4j.report.python.PythonRepr;
import io.llmperf4j.report.stats.PandasStats;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * llmperf's statistics of one metric over the successful requests: quantiles p25..p99, mean, min, max and the
 * sample standard deviation, computed as pandas does ({@link PandasStats}).
 *
 * @param metric        which metric
 * @param quantiles     "p25", "p50", "p75", "p90", "p95", "p99" to their values, in that order
 * @param mean          the mean
 * @param min           the smallest value
 * @param max           the largest value
 * @param stddev        the sample standard deviation (ddof = 1): NaN for fewer than two values
 * @param count         how many values (successful requests)
 * @param integerColumn true when pandas would hold the column as int64 (every recorded value a Python int);
 *                      then min and max are numpy ints, which llmperf's JSON writes as strings
 */
public record MetricSummary(
        LlmperfMetric metric,
        Map<String, Double> quantiles,
        double mean,
        double min,
        double max,
        double stddev,
        int count,
        boolean integerColumn) {

    /** The quantiles llmperf asks pandas for. */
    public static final List<Double> QUANTILES = List.of(0.25, 0.5, 0.75, 0.9, 0.95, 0.99);

    public MetricSummary {
        quantiles = Collections.unmodifiableMap(new LinkedHashMap<>(quantiles));
    }

    /** Summarises {@code values} (NaN-free) the way llmperf's {@code metrics_summary} does. */
    public static MetricSummary of(LlmperfMetric metric, double[] values, boolean integerColumn) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        Map<String, Double> quantiles = new LinkedHashMap<>();
        for (double q : QUANTILES) {
            // llmperf's key is f"p{int(quantile * 100)}"
            quantiles.put("p" + (int) (q * 100), PandasStats.quantile(sorted, q));
        }
        return new MetricSummary(metric, quantiles, PandasStats.mean(values), PandasStats.min(values),
                PandasStats.max(values), PandasStats.sampleStddev(values), values.length, integerColumn);
    }

    /** {@code min} as llmperf's JSON holds it: a String for a non-empty integer column, else a Double. */
    public Object minJsonValue() {
        return pythonExtreme(min);
    }

    /** {@code max} as llmperf's JSON holds it: a String for a non-empty integer column, else a Double. */
    public Object maxJsonValue() {
        return pythonExtreme(max);
    }

    /** How Python prints {@code min} ({@code print(series.min())}). */
    public String minPrinted() {
        return printed(min);
    }

    /** How Python prints {@code max}. */
    public String maxPrinted() {
        return printed(max);
    }

    private Object pythonExtreme(double value) {
        // numpy int64 is not JSON-serialisable, so llmperf's default=str turns it into its decimal text.
        return integerColumn && count > 0 ? Long.toString((long) value) : (Object) value;
    }

    private String printed(double value) {
        return integerColumn && count > 0 ? Long.toString((long) value) : PythonRepr.ofFloat(value);
    }
}

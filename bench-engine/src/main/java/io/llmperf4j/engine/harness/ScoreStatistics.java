package io.llmperf4j.engine.harness;

import org.apache.commons.math3.distribution.TDistribution;
import org.apache.commons.math3.stat.descriptive.rank.Percentile;

import java.util.Arrays;

/**
 * Statistics over iteration scores, computed as JMH computes them: mean, sample standard deviation (n − 1), and the
 * half-width of the two-sided confidence interval of the mean from Student's t,
 * {@code error = t(1 − (1 − c)/2, n − 1) · s / √n} ({@code c} = 0.999 for JMH's "±(99.9%)"). Percentiles use
 * commons-math3's {@link Percentile} (its default estimator, as JMH), with rank 0 being the minimum.
 *
 * <p>Worked example: scores {1, 2, 3, 4, 5}: mean 3, s = √2.5 = 1.5811, t(0.9995, 4) = 8.6103, error =
 * 8.6103 · 1.5811 / √5 = 6.0884, CI [−3.0884, 9.0884]. The error is NaN below 2 scores (JMH itself already gives NaN
 * at 2; with 2 the interval is defined, only very wide: t(0.9995, 1) = 636.6).
 */
public final class ScoreStatistics {

    /** JMH's confidence level for score errors. */
    public static final double CONFIDENCE = 0.999;

    private final double[] values;
    private final double mean;
    private final double variance;

    private ScoreStatistics(double[] values) {
        this.values = values;
        double sum = 0;
        for (double v : values) sum += v;
        this.mean = values.length == 0 ? Double.NaN : sum / values.length;
        double ss = 0;
        for (double v : values) ss += (v - mean) * (v - mean);
        this.variance = values.length < 2 ? Double.NaN : ss / (values.length - 1);
    }

    /** Over {@code values}; NaN values are left out. */
    public static ScoreStatistics of(double... values) {
        return new ScoreStatistics(Arrays.stream(values).filter(v -> !Double.isNaN(v)).toArray());
    }

    public int n() {
        return values.length;
    }

    /** NaN when empty. */
    public double mean() {
        return mean;
    }

    public double min() {
        return values.length == 0 ? Double.NaN : Arrays.stream(values).min().getAsDouble();
    }

    public double max() {
        return values.length == 0 ? Double.NaN : Arrays.stream(values).max().getAsDouble();
    }

    /** Sample variance (n − 1); NaN below 2 values. */
    public double variance() {
        return variance;
    }

    public double standardDeviation() {
        return Math.sqrt(variance);
    }

    /** Half-width of the 99.9 % confidence interval of the mean; NaN below 2 values. */
    public double error() {
        return errorAt(CONFIDENCE);
    }

    /** Half-width of the {@code confidence} interval of the mean, by Student's t; NaN below 2 values. */
    public double errorAt(double confidence) {
        if (!(confidence > 0 && confidence < 1)) {
            throw new IllegalArgumentException("confidence (" + confidence + ") must be in (0, 1)");
        }
        if (values.length < 2) return Double.NaN;
        double t = new TDistribution(null, values.length - 1)
                .inverseCumulativeProbability(1 - (1 - confidence) / 2);
        return t * standardDeviation() / Math.sqrt(values.length);
    }

    /** [mean − error, mean + error] at 99.9 %; NaNs below 2 values. */
    public double[] confidenceInterval() {
        double e = error();
        return new double[] {mean - e, mean + e};
    }

    /** The {@code rank}-th percentile (0..100), JMH's way; NaN when empty. */
    public double percentile(double rank) {
        if (values.length == 0) return Double.NaN;
        if (rank == 0) return min();
        return new Percentile().evaluate(values.clone(), rank);
    }

    /** A copy of the values. */
    public double[] values() {
        return values.clone();
    }

    @Override
    public String toString() {
        return "ScoreStatistics[n=" + n() + ", mean=" + mean + ", error=" + error() + "]";
    }
}

package io.llmperf4j.report.compare;

import io.llmperf4j.report.stats.PandasStats;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The percentile bootstrap of statistic deltas between two independent samples. A resample of a sorted sample
 * is drawn as multiplicities (n uniform draws of an index) and expanded in index order, so it comes out sorted
 * in O(n) without a sort; quantiles are numpy's linear interpolation ({@link PandasStats#quantile}). Pooled
 * samples ({@link PooledSample}, e.g. ITL gaps) are resampled by request: a resample draws requests with
 * replacement and keeps all of each drawn request's values, weighted by how often it was drawn.
 */
final class Bootstrap {

    private Bootstrap() {
    }

    /** The statistic of a sorted sample: a quantile (linear interpolation) or the mean. NaN when empty. */
    static double estimate(double[] sorted, CompareStat stat) {
        if (sorted.length == 0) return Double.NaN;
        return stat == CompareStat.MEAN ? PandasStats.mean(sorted) : PandasStats.quantile(sorted, stat.quantile());
    }

    /**
     * The bootstrap CIs of candidate − baseline (absolute, and relative in percent) for each stat.
     *
     * @return {@code [stat][0 = absolute, 1 = relative]}; an entry is null when it cannot be estimated
     */
    static ConfidenceInterval[][] intervals(double[] baselineSorted, double[] candidateSorted, CompareStat[] stats,
                                            BootstrapConfig config, long streamSeed) {
        ConfidenceInterval[][] result = new ConfidenceInterval[stats.length][2];
        if (baselineSorted.length < 2 || candidateSorted.length < 2) return result;
        int resamples = config.resamples();
        double[][] absolute = new double[stats.length][resamples];
        double[][] relative = new double[stats.length][resamples];
        int[] relativeCount = new int[stats.length];
        SplittableRandom random = new SplittableRandom(streamSeed);
        int[] baselineCounts = new int[baselineSorted.length];
        int[] candidateCounts = new int[candidateSorted.length];
        double[] baselineResample = new double[baselineSorted.length];
        double[] candidateResample = new double[candidateSorted.length];
        for (int r = 0; r < resamples; r++) {
            resample(baselineSorted, baselineCounts, baselineResample, random);
            resample(candidateSorted, candidateCounts, candidateResample, random);
            for (int s = 0; s < stats.length; s++) {
                double a = estimate(baselineResample, stats[s]);
                double b = estimate(candidateResample, stats[s]);
                absolute[s][r] = b - a;
                if (a != 0) relative[s][relativeCount[s]++] = (b - a) / a * 100.0;
            }
        }
        for (int s = 0; s < stats.length; s++) {
            result[s][0] = interval(absolute[s], resamples, config.confidenceLevel());
            // A relative CI needs (almost) every resample defined; otherwise it would silently condition on a != 0.
            if (relativeCount[s] == resamples) {
                result[s][1] = interval(relative[s], resamples, config.confidenceLevel());
            }
        }
        return result;
    }

    /**
     * As {@link #intervals}, for pooled samples: each resample draws the contributing requests with replacement
     * (a cluster bootstrap), so correlated gaps of one request move together.
     */
    static ConfidenceInterval[][] pooledIntervals(PooledSample baseline, PooledSample candidate, CompareStat[] stats,
                                                  BootstrapConfig config, long streamSeed) {
        ConfidenceInterval[][] result = new ConfidenceInterval[stats.length][2];
        if (baseline.requests() < 2 || candidate.requests() < 2) return result;
        int resamples = config.resamples();
        double[][] absolute = new double[stats.length][resamples];
        double[][] relative = new double[stats.length][resamples];
        int[] relativeCount = new int[stats.length];
        SplittableRandom random = new SplittableRandom(streamSeed);
        Weighted a = new Weighted(baseline);
        Weighted b = new Weighted(candidate);
        for (int r = 0; r < resamples; r++) {
            a.draw(random);
            b.draw(random);
            for (int s = 0; s < stats.length; s++) {
                double ea = a.estimate(stats[s]);
                double eb = b.estimate(stats[s]);
                absolute[s][r] = eb - ea;
                if (ea != 0) relative[s][relativeCount[s]++] = (eb - ea) / ea * 100.0;
            }
        }
        for (int s = 0; s < stats.length; s++) {
            result[s][0] = interval(absolute[s], resamples, config.confidenceLevel());
            if (relativeCount[s] == resamples) {
                result[s][1] = interval(relative[s], resamples, config.confidenceLevel());
            }
        }
        return result;
    }

    /** One pooled sample under a request resample: each value weighted by its request's draw count. */
    private static final class Weighted {
        private final PooledSample sample;
        private final int[] draws;
        private final long[] cumulative;
        private long total;

        Weighted(PooledSample sample) {
            this.sample = sample;
            this.draws = new int[sample.requests()];
            this.cumulative = new long[sample.size()];
        }

        void draw(SplittableRandom random) {
            int n = draws.length;
            Arrays.fill(draws, 0);
            for (int i = 0; i < n; i++) draws[random.nextInt(n)]++;
            long sum = 0;
            for (int k = 0; k < cumulative.length; k++) {
                sum += draws[sample.request()[k]];
                cumulative[k] = sum;
            }
            total = sum;
        }

        /** The statistic of the resample, as {@link Bootstrap#estimate} on its expanded sorted values. */
        double estimate(CompareStat stat) {
            if (total == 0) return Double.NaN;
            if (stat == CompareStat.MEAN) {
                double sum = 0;
                double[] sorted = sample.sorted();
                for (int k = 0; k < sorted.length; k++) sum += draws[sample.request()[k]] * sorted[k];
                return sum / total;
            }
            double virtualIndex = (total - 1) * ((stat.quantile() * 100.0) / 100.0);
            long below = Math.min(total - 1, (long) Math.floor(virtualIndex));
            long above = Math.min(total - 1, below + 1);
            double gamma = virtualIndex - below;
            double lo = valueAtRank(below);
            double hi = valueAtRank(above);
            double difference = hi - lo;
            return gamma >= 0.5 ? hi - difference * (1 - gamma) : lo + difference * gamma;
        }

        /** The value at 0-based {@code rank} of the expanded resample. */
        private double valueAtRank(long rank) {
            int k = Arrays.binarySearch(cumulative, rank + 1);
            if (k < 0) {
                k = -k - 1;
            } else {
                while (k > 0 && cumulative[k - 1] == rank + 1) k--;
            }
            return sample.sorted()[k];
        }
    }

    private static void resample(double[] sorted, int[] counts, double[] into, SplittableRandom random) {
        int n = sorted.length;
        Arrays.fill(counts, 0);
        for (int i = 0; i < n; i++) counts[random.nextInt(n)]++;
        int k = 0;
        for (int j = 0; j < n; j++) {
            for (int c = counts[j]; c > 0; c--) into[k++] = sorted[j];
        }
    }

    private static ConfidenceInterval interval(double[] deltas, int count, double level) {
        double[] sorted = Arrays.copyOf(deltas, count);
        Arrays.sort(sorted);
        double alpha = 1 - level;
        return new ConfidenceInterval(level, PandasStats.quantile(sorted, alpha / 2),
                PandasStats.quantile(sorted, 1 - alpha / 2));
    }
}

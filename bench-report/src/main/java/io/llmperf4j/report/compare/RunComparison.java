package io.llmperf4j.report.compare;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Baseline against candidate: for TTFT, TPOT, ITL (per event and per token), E2E and per-request output tok/s the
 * p50, p90, p99 and mean with bootstrap confidence intervals of their deltas ({@link BootstrapConfig}; ITL
 * resamples whole requests, see {@link CompareMetric#pooled()}); for output throughput, request
 * throughput and error rate one value per run, without an interval (a single run gives no spread; repeat runs
 * for one). Deterministic for given inputs and seed: each metric draws from its own stream, seeded from the
 * config's seed and the metric's key, so adding or removing a metric changes no other interval.
 *
 * @param baseline  the baseline run's sizes
 * @param candidate the candidate run's sizes
 * @param bootstrap the bootstrap used
 * @param deltas    every compared statistic, per-request metrics first, in {@link CompareMetric} and
 *                  {@link CompareStat} order
 */
public record RunComparison(ComparedRun baseline, ComparedRun candidate, BootstrapConfig bootstrap,
                            List<MetricDelta> deltas) {

    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    public RunComparison {
        Objects.requireNonNull(baseline, "baseline");
        Objects.requireNonNull(candidate, "candidate");
        Objects.requireNonNull(bootstrap, "bootstrap");
        deltas = List.copyOf(deltas);
    }

    /**
     * One side of a comparison.
     *
     * @param label         the run's name
     * @param recorded      recorded requests
     * @param succeeded     successful requests
     * @param windowSeconds first send to last response end
     * @param source        where its records came from ({@link RunSamples#source()})
     */
    public record ComparedRun(String label, int recorded, int succeeded, double windowSeconds, String source) {
        static ComparedRun of(RunSamples samples) {
            return new ComparedRun(samples.label(), samples.recorded(), samples.succeeded(),
                    samples.windowNanos() / 1e9, samples.source());
        }
    }

    /** Compares with {@link BootstrapConfig#DEFAULT}. */
    public static RunComparison compare(RunSamples baseline, RunSamples candidate) {
        return compare(baseline, candidate, BootstrapConfig.DEFAULT);
    }

    /** Compares {@code candidate} against {@code baseline}. */
    public static RunComparison compare(RunSamples baseline, RunSamples candidate, BootstrapConfig config) {
        Objects.requireNonNull(baseline, "baseline");
        Objects.requireNonNull(candidate, "candidate");
        Objects.requireNonNull(config, "config");
        List<MetricDelta> deltas = new ArrayList<>();
        for (CompareMetric metric : CompareMetric.values()) {
            if (metric.perRequest()) {
                CompareStat[] stats = CompareStat.PER_REQUEST;
                long seed = config.seed() * GOLDEN_GAMMA + metric.key().hashCode();
                double[] a;
                double[] b;
                ConfidenceInterval[][] cis;
                if (metric.pooled()) {
                    PooledSample pa = baseline.pooledValues(metric);
                    PooledSample pb = candidate.pooledValues(metric);
                    a = pa.sorted();
                    b = pb.sorted();
                    cis = Bootstrap.pooledIntervals(pa, pb, stats, config, seed);
                } else {
                    a = baseline.sortedValues(metric);
                    b = candidate.sortedValues(metric);
                    cis = Bootstrap.intervals(a, b, stats, config, seed);
                }
                for (int s = 0; s < stats.length; s++) {
                    deltas.add(delta(metric, stats[s], Bootstrap.estimate(a, stats[s]), Bootstrap.estimate(b, stats[s]),
                            a.length, b.length, cis[s][0], cis[s][1]));
                }
            } else {
                int countA = metric == CompareMetric.ERROR_RATE ? baseline.recorded() : baseline.succeeded();
                int countB = metric == CompareMetric.ERROR_RATE ? candidate.recorded() : candidate.succeeded();
                deltas.add(delta(metric, CompareStat.VALUE, baseline.runValue(metric), candidate.runValue(metric),
                        countA, countB, null, null));
            }
        }
        return new RunComparison(ComparedRun.of(baseline), ComparedRun.of(candidate), config, deltas);
    }

    /** The delta of one statistic, if compared. */
    public Optional<MetricDelta> delta(CompareMetric metric, CompareStat stat) {
        return deltas.stream().filter(d -> d.metric() == metric && d.stat() == stat).findFirst();
    }

    /** Evaluates fail-if rules against this comparison, in the given order. */
    public List<RuleResult> evaluate(List<FailIfRule> rules) {
        return rules.stream().map(rule -> rule.evaluate(this)).toList();
    }

    private static MetricDelta delta(CompareMetric metric, CompareStat stat, double a, double b, int countA,
                                     int countB, ConfidenceInterval absoluteCi, ConfidenceInterval relativeCi) {
        double relative = a != 0 && Double.isFinite(a) && Double.isFinite(b) ? (b - a) / a * 100.0 : Double.NaN;
        return new MetricDelta(metric, stat, a, b, countA, countB, b - a, relative, absoluteCi, relativeCi);
    }
}

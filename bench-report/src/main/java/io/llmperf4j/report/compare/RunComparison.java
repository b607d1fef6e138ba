package io.llmperf4j.report.compare;

import io.llmperf4j.model.FailureCause;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
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
     * @param failureCauses its failed requests by cause ({@link RunSamples#failureCauses()}); empty when unknown
     * @param unsentLoad    the planned requests a load worker that left never sent ({@link RunSamples#unsentLoad()}),
     *                      or null when none
     */
    public record ComparedRun(String label, int recorded, int succeeded, double windowSeconds, String source,
                              Map<FailureCause, Integer> failureCauses, UnsentLoad unsentLoad) {
        public ComparedRun {
            failureCauses = failureCauses.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(failureCauses));
        }

        /** A side that sent all it planned, or of which that is not known. */
        public ComparedRun(String label, int recorded, int succeeded, double windowSeconds, String source,
                           Map<FailureCause, Integer> failureCauses) {
            this(label, recorded, succeeded, windowSeconds, source, failureCauses, null);
        }

        /** A side whose failures' causes are not known (iterations keep counts alone). */
        public ComparedRun(String label, int recorded, int succeeded, double windowSeconds, String source) {
            this(label, recorded, succeeded, windowSeconds, source, Map.of());
        }

        static ComparedRun of(RunSamples samples) {
            return new ComparedRun(samples.label(), samples.recorded(), samples.succeeded(),
                    samples.windowNanos() / 1e9, samples.source(), samples.failureCauses(),
                    samples.unsentLoad().orElse(null));
        }

        /** The planned requests a load worker that left never sent; empty when none. */
        public Optional<UnsentLoad> unsent() {
            return Optional.ofNullable(unsentLoad);
        }

        /**
         * "150 LOST: lost with a load worker that left the cluster mid-run, no fault of the server's", one clause per
         * cause, when some of its failures are not the server's (lost, cancelled, the client's configuration, or
         * pointing at neither); empty when it has none, or every failure may be the server's.
         */
        public Optional<String> failuresNotTheServers() {
            if (failureCauses.keySet().stream().allMatch(c -> c == FailureCause.CAPACITY
                    || c == FailureCause.SERVER_UNAVAILABLE)) {
                return Optional.empty();
            }
            List<String> parts = new ArrayList<>();
            failureCauses.forEach((cause, n) -> parts.add(n + " " + cause + ": " + causeWords(cause)));
            return Optional.of(String.join("; ", parts));
        }

        private static String causeWords(FailureCause cause) {
            return switch (cause) {
                case LOST -> "lost with a load worker that left the cluster mid-run, no fault of the server's";
                case CANCELLED -> "cancelled in flight when the run was stopped or reached its time limit, no fault of "
                        + "the server's";
                case CONFIGURATION -> "the client's configuration (a refused connection, a 3xx or 4xx), not the "
                        + "server's capacity";
                case OTHER -> "pointing at neither side (a malformed or cut-short stream, an error without a code)";
                case CAPACITY -> "the server's capacity (" + FailureCause.CAPACITY_SIGNS + ")";
                case SERVER_UNAVAILABLE -> "the server going away (connections refused after it had served)";
            };
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
        boolean scheduled = baseline.hasSendLags() || candidate.hasSendLags();
        for (CompareMetric metric : CompareMetric.values()) {
            if (metric.needsSendLag() && !scheduled) continue; // no intended send on either side: no rows
            if (metric == CompareMetric.ITL_PER_TOKEN && samePooled(baseline, candidate)) {
                // every content event carried one token: the per-token samples are the per-event ones, so are
                // their intervals (not a second draw that could mark one row and not the other)
                for (MetricDelta d : List.copyOf(deltas)) {
                    if (d.metric() == CompareMetric.ITL) {
                        deltas.add(new MetricDelta(metric, d.stat(), d.baseline(), d.candidate(), d.baselineCount(),
                                d.candidateCount(), d.absoluteDelta(), d.relativeDeltaPercent(), d.absoluteCi(),
                                d.relativeCi()));
                    }
                }
                continue;
            }
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

    private static boolean samePooled(RunSamples baseline, RunSamples candidate) {
        for (RunSamples side : List.of(baseline, candidate)) {
            if (!java.util.Arrays.equals(side.pooledValues(CompareMetric.ITL).sorted(),
                    side.pooledValues(CompareMetric.ITL_PER_TOKEN).sorted())) {
                return false;
            }
        }
        return true;
    }

    /**
     * True when the per-token ITL rows repeat the per-event ones on both sides (every content event carried one
     * token), so a report need print only one of them.
     */
    public boolean itlPerTokenRepeatsItl() {
        List<MetricDelta> itl = deltas.stream().filter(d -> d.metric() == CompareMetric.ITL).toList();
        List<MetricDelta> perToken = deltas.stream().filter(d -> d.metric() == CompareMetric.ITL_PER_TOKEN).toList();
        if (itl.isEmpty() || itl.size() != perToken.size()) return false;
        for (int i = 0; i < itl.size(); i++) {
            MetricDelta a = itl.get(i);
            MetricDelta b = perToken.get(i);
            if (Double.compare(a.baseline(), b.baseline()) != 0 || Double.compare(a.candidate(), b.candidate()) != 0
                    || a.baselineCount() != b.baselineCount() || a.candidateCount() != b.candidateCount()
                    || !Objects.equals(a.absoluteCi(), b.absoluteCi())) {
                return false;
            }
        }
        return true;
    }

    /**
     * A line when the send lag p90 differs materially between the sides: by more than 1 ms and by more than 10 % of
     * the baseline's TTFT p90 from the intended send, so that waiting before the send alone would move that TTFT
     * by more than a typical gate's limit. TTFT and E2E count from the actual send and do not show that wait (a
     * closed cap, {@code --max-concurrency}, or a busy client holding requests back); the rows from the intended send
     * do, and so do the verdicts of TTFT and E2E rules ({@link FailIfRule#evaluate}). Empty when the lags are alike, or a side has none.
     */
    public Optional<String> sendLagDifference() {
        Optional<MetricDelta> lag = delta(CompareMetric.SEND_LAG, CompareStat.P90);
        Optional<MetricDelta> ttft = delta(CompareMetric.TTFT_FROM_INTENDED, CompareStat.P90);
        Optional<MetricDelta> plain = delta(CompareMetric.TTFT, CompareStat.P90);
        if (lag.isEmpty() || ttft.isEmpty() || plain.isEmpty()) return Optional.empty();
        MetricDelta l = lag.get();
        MetricDelta t = ttft.get();
        if (!Double.isFinite(l.absoluteDelta()) || !Double.isFinite(t.baseline())) return Optional.empty();
        double limit = Math.max(1.0, 0.10 * t.baseline());
        if (Math.abs(l.absoluteDelta()) <= limit) return Optional.empty();
        String later = l.absoluteDelta() > 0 ? "candidate" : "baseline";
        return Optional.of(String.format(java.util.Locale.ROOT, "send lag differs: p90 %.1f ms (baseline) vs %.1f ms "
                        + "(candidate): the %s's requests went out later than scheduled (queued behind its in-flight "
                        + "cap, or a busy client), which TTFT and E2E, counted from the actual send, do not show "
                        + "(TTFT p90 %s); counted from the intended send, TTFT p90 went %.1f -> %.1f ms (%s), "
                        + "which is what ttft_* and e2e_* rules judge", l.baseline(), l.candidate(), later,
                percentText(plain.get().relativeDeltaPercent()), t.baseline(), t.candidate(),
                percentText(t.relativeDeltaPercent())));
    }

    /**
     * A line when a side's failures are not all the server's (lost with a load worker, cancelled at a stop, the
     * client's configuration): its error rate, and the throughput those requests did not deliver, are then not a
     * verdict on the server, and the line says which failures they were. Empty when every failure may be the
     * server's, or none failed.
     */
    public Optional<String> failuresNotTheServers() {
        List<String> sides = new ArrayList<>();
        baseline.failuresNotTheServers().ifPresent(words -> sides.add("the baseline's " + words));
        candidate.failuresNotTheServers().ifPresent(words -> sides.add("the candidate's " + words));
        if (sides.isEmpty()) return Optional.empty();
        // a lost worker's unsent requests, not its few lost ones, are what a throughput drop comes from then
        return Optional.of("error rate: failures that are not the server's: " + String.join("; ", sides)
                + (unsentLoad().isPresent() ? " (the error rate counts them all; the throughput line says what the "
                + "unsent load explains)" : " (the error rate and the throughput count them all)"));
    }

    /**
     * A line when a side is a distributed run that lost a load worker with some of its planned requests never sent
     * ({@link UnsentLoad}): that side offered less load than was asked, so its throughput is of the load it sent, and
     * a drop of up to the unsent share is that, not the server, nor the requests lost with the worker (they were
     * sent, and are too few to move it so). Empty when both sides sent all they planned (or it is not known).
     */
    public Optional<String> unsentLoad() {
        List<String> sides = new ArrayList<>();
        baseline.unsent().ifPresent(u -> sides.add(unsentWords("baseline", u, baseline)));
        candidate.unsent().ifPresent(u -> sides.add(unsentWords("candidate", u, candidate)));
        if (sides.isEmpty()) return Optional.empty();
        return Optional.of("throughput: load never sent: " + String.join("; ", sides));
    }

    private static String unsentWords(String side, UnsentLoad u, ComparedRun run) {
        int lost = run.failureCauses().getOrDefault(FailureCause.LOST, 0);
        String lostWords = lost == 0 ? "" : String.format(java.util.Locale.ROOT, " (and its %d request%s lost with the "
                + "worker, sent but their answers unknown, %.1f %% more)", lost, lost == 1 ? "" : "s",
                100.0 * lost / u.planned());
        return String.format(java.util.Locale.ROOT, "the %s's %s, so it offered %.1f %% of its planned load and its "
                + "throughput rows are of that load: a drop of up to %.1f %% is the load it never sent%s, not the "
                + "server", side, u.words(), 100 * (1 - u.share()), 100 * u.share(), lostWords);
    }

    private static String percentText(double v) {
        return Double.isFinite(v) ? String.format(java.util.Locale.ROOT, "%+.1f %%", v) : "-";
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

package io.llmperf4j.report.metrics;

import io.llmperf4j.model.Percentiles;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The {@link Phase} distributions of a run's successful requests, with llmperf4j's one percentile definition
 * ({@link Percentiles}), and the mean TTFT breakdown over the requests whose every TTFT term is known: means add
 * up, so {@code wait + connect + write + server + first content = TTFT} holds for them exactly (medians would not).
 *
 * @param stats         each phase's distribution, in {@link Phase} order
 * @param timedRequests successful requests with every TTFT term known
 * @param ttftBreakdown the mean of each TTFT term over those requests, in ns (empty when there are none)
 * @param ttftMeanNanos their mean TTFT, the breakdown's sum; NaN when there are none
 */
public record PhaseStats(Map<Phase, Dist> stats, int timedRequests, Map<Phase, Double> ttftBreakdown,
                         double ttftMeanNanos) {

    public PhaseStats {
        stats = Collections.unmodifiableMap(new EnumMap<>(stats));
        ttftBreakdown = ttftBreakdown.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(ttftBreakdown));
    }

    /** One phase's values: count, p50, p90, p99, mean and max in ns; NaN without values. */
    public record Dist(int count, double p50, double p90, double p99, double mean, double max) {
        static Dist of(double[] values) {
            double[] sorted = values.clone();
            Arrays.sort(sorted);
            int n = sorted.length;
            double mean = n == 0 ? Double.NaN : Arrays.stream(sorted).sum() / n;
            return new Dist(n, Percentiles.ofSorted(sorted, 50), Percentiles.ofSorted(sorted, 90),
                    Percentiles.ofSorted(sorted, 99), mean, n == 0 ? Double.NaN : sorted[n - 1]);
        }
    }

    /** The phases of the successful requests among {@code requests}. */
    public static PhaseStats of(List<RequestMetrics> requests) {
        List<RequestMetrics> ok = requests.stream().filter(RequestMetrics::succeeded).toList();
        Map<Phase, Dist> stats = new EnumMap<>(Phase.class);
        for (Phase phase : Phase.values()) {
            // connect: only requests that opened a connection (a reused one has no connect to describe)
            double[] values = ok.stream().map(RequestMetrics::phases)
                    .filter(p -> phase != Phase.CONNECT || Boolean.TRUE.equals(p.newConnection()))
                    .map(p -> p.nanos(phase)).filter(java.util.OptionalLong::isPresent)
                    .mapToDouble(java.util.OptionalLong::getAsLong).toArray();
            stats.put(phase, Dist.of(values));
        }
        List<RequestMetrics> timed = ok.stream().filter(r -> r.phases().ttftTimed()).toList();
        Map<Phase, Double> breakdown = new EnumMap<>(Phase.class);
        double ttftMean = Double.NaN;
        if (!timed.isEmpty()) {
            for (Phase phase : Phase.values()) {
                if (!phase.partOfTtft()) continue;
                breakdown.put(phase, timed.stream().mapToLong(r -> r.phases().nanos(phase).getAsLong()).sum()
                        / (double) timed.size());
            }
            ttftMean = timed.stream().mapToLong(r -> r.ttftNanos().getAsLong()).sum() / (double) timed.size();
        }
        return new PhaseStats(stats, timed.size(), breakdown, ttftMean);
    }

    /** One phase's distribution. */
    public Dist stats(Phase phase) {
        return stats.get(phase);
    }
}

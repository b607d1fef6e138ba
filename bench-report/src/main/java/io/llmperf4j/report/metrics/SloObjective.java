package io.llmperf4j.report.metrics;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Objects;

/**
 * One service-level objective of {@code --slo}, judged over a level's requests.
 * <ul>
 *   <li>{@link Percentile}: the p-th percentile of a latency is at most a bound ({@code ttft_p99<=500ms});</li>
 *   <li>{@link Attainment}: at least a fraction of the requests meet a per-request bound ({@code ttft<=500ms@99%},
 *       goodput's "good request" as vLLM and GuideLLM count it; failed requests are not good);</li>
 *   <li>{@link ErrorRate}: at most a fraction of the requests failed ({@code error_rate<=1%}).</li>
 * </ul>
 */
public sealed interface SloObjective permits SloObjective.Percentile, SloObjective.Attainment, SloObjective.ErrorRate {

    /** As written in {@code --slo}, normalized: "ttft_p99<=500ms". */
    String key();

    /** The objective's bound in its unit (ms for latencies, a fraction for the error rate). */
    double limit();

    /** The unit of {@link #limit()} and of the estimates: "ms" or "fraction". */
    String unit();

    /**
     * @param metric     the latency
     * @param percentile in (0, 100), e.g. 99
     * @param bound      the largest allowed value of that percentile
     */
    record Percentile(SloMetric metric, double percentile, Duration bound) implements SloObjective {
        public Percentile {
            Objects.requireNonNull(metric, "metric");
            if (!(percentile > 0 && percentile < 100)) {
                throw new IllegalArgumentException("percentile (" + percentile + ") must be in (0, 100)");
            }
            positive(bound);
        }

        @Override
        public String key() {
            return metric.key() + "_p" + plain(percentile) + "<=" + millis(bound) + "ms";
        }

        @Override
        public double limit() {
            return bound.toNanos() / 1e6;
        }

        @Override
        public String unit() {
            return "ms";
        }
    }

    /**
     * @param metric the latency each request must meet
     * @param bound  the per-request bound
     * @param target the fraction of requests that must meet it, in (0, 1]
     */
    record Attainment(SloMetric metric, Duration bound, double target) implements SloObjective {
        public Attainment {
            Objects.requireNonNull(metric, "metric");
            positive(bound);
            if (!(target > 0 && target <= 1)) {
                throw new IllegalArgumentException("attainment target (" + target + ") must be in (0, 1]");
            }
        }

        @Override
        public String key() {
            return metric.key() + "<=" + millis(bound) + "ms@" + plain(100 * target) + "%";
        }

        @Override
        public double limit() {
            return target;
        }

        @Override
        public String unit() {
            return "fraction";
        }
    }

    /** @param maxRate the largest allowed fraction of failed requests, in [0, 1) */
    record ErrorRate(double maxRate) implements SloObjective {
        public ErrorRate {
            if (!(maxRate >= 0 && maxRate < 1)) {
                throw new IllegalArgumentException("error_rate bound (" + maxRate + ") must be in [0, 1)");
            }
        }

        @Override
        public String key() {
            return "error_rate<=" + plain(100 * maxRate) + "%";
        }

        @Override
        public double limit() {
            return maxRate;
        }

        @Override
        public String unit() {
            return "fraction";
        }
    }

    private static void positive(Duration bound) {
        Objects.requireNonNull(bound, "bound");
        if (bound.isNegative() || bound.isZero()) throw new IllegalArgumentException("bound (" + bound + ") must be > 0");
    }

    /** 500 for 500 ms, 0.5 for 500 us. */
    static String millis(Duration d) {
        return BigDecimal.valueOf(d.toNanos(), 6).stripTrailingZeros().toPlainString();
    }

    /** 99 for 99.0, 99.9 for 99.9. */
    static String plain(double v) {
        return BigDecimal.valueOf(v).round(new java.math.MathContext(10)).stripTrailingZeros().toPlainString();
    }
}

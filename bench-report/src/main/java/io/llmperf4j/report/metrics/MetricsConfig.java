package io.llmperf4j.report.metrics;

import java.util.Objects;
import java.util.Optional;

/**
 * What llmperf4j's own metrics need beyond the run: how to count tokens, and an optional SLO for goodput.
 *
 * @param tokenCounting how output tokens are counted
 * @param slo           the goodput objective, or null for no goodput
 */
public record MetricsConfig(TokenCounting tokenCounting, Slo slo) {

    /** {@link TokenCounting#DEFAULT}, no SLO. */
    public static final MetricsConfig DEFAULT = new MetricsConfig(TokenCounting.DEFAULT, null);

    public MetricsConfig {
        Objects.requireNonNull(tokenCounting, "tokenCounting");
    }

    /** This config with {@code slo} (null removes it). */
    public MetricsConfig withSlo(Slo slo) {
        return new MetricsConfig(tokenCounting, slo);
    }

    /** This config with another token counting. */
    public MetricsConfig withTokenCounting(TokenCounting tokenCounting) {
        return new MetricsConfig(tokenCounting, slo);
    }

    /** The SLO, when one was given. */
    public Optional<Slo> optionalSlo() {
        return Optional.ofNullable(slo);
    }
}

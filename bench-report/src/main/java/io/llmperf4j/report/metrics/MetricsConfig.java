package io.llmperf4j.report.metrics;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What llmperf4j's own metrics need beyond the run: how to count tokens, an optional SLO for goodput, the
 * {@code --slo} objectives a run is judged against, and whether the server ran in the client's process.
 *
 * @param tokenCounting how output tokens are counted
 * @param slo           the goodput objective, or null for no goodput
 * @param objectives    the {@code --slo} terms, or null: their objectives get a verdict over the run's requests
 *                      ({@code RunMetrics.sloVerdict}) and their merged goodput bounds are named; null for a capacity
 *                      search, which judges its levels itself
 * @param serverInProcess the server measured runs in the client's own process (the embedded simulated server): it
 *                        shares the client's CPUs, and CLIENT_BOTTLENECK's sentence names it among what kept the
 *                        client from them
 */
public record MetricsConfig(TokenCounting tokenCounting, Slo slo, SloObjectives objectives, boolean serverInProcess) {

    /** {@link TokenCounting#DEFAULT}, no SLO. */
    public static final MetricsConfig DEFAULT = new MetricsConfig(TokenCounting.DEFAULT, null);

    public MetricsConfig {
        Objects.requireNonNull(tokenCounting, "tokenCounting");
    }

    /** Token counting, goodput and objectives, for a server in another process. */
    public MetricsConfig(TokenCounting tokenCounting, Slo slo, SloObjectives objectives) {
        this(tokenCounting, slo, objectives, false);
    }

    /** Token counting and goodput without objectives to judge. */
    public MetricsConfig(TokenCounting tokenCounting, Slo slo) {
        this(tokenCounting, slo, null);
    }

    /** This config with {@code slo} (null removes it). */
    public MetricsConfig withSlo(Slo slo) {
        return new MetricsConfig(tokenCounting, slo, objectives, serverInProcess);
    }

    /** This config with another token counting. */
    public MetricsConfig withTokenCounting(TokenCounting tokenCounting) {
        return new MetricsConfig(tokenCounting, slo, objectives, serverInProcess);
    }

    /** This config with {@code objectives} to judge (null removes them); the goodput SLO is left as it is. */
    public MetricsConfig withObjectives(SloObjectives objectives) {
        return new MetricsConfig(tokenCounting, slo, objectives, serverInProcess);
    }

    /** This config for a server that runs in the client's process ({@code true}) or not. */
    public MetricsConfig withServerInProcess(boolean serverInProcess) {
        return new MetricsConfig(tokenCounting, slo, objectives, serverInProcess);
    }

    /** The SLO, when one was given. */
    public Optional<Slo> optionalSlo() {
        return Optional.ofNullable(slo);
    }

    /** The objectives a run's requests are judged against; empty without any. */
    public List<SloObjective> judgedObjectives() {
        return objectives == null ? List.of() : objectives.objectives();
    }

    /** How the goodput bounds were merged where several terms bound one metric ({@link SloObjectives#mergedBounds}). */
    public List<String> mergedGoodputBounds() {
        return objectives == null || slo == null || !slo.equals(objectives.goodput()) ? List.of()
                : objectives.mergedBounds();
    }
}

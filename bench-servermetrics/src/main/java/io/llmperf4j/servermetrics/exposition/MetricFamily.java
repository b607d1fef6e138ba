package io.llmperf4j.servermetrics.exposition;

import java.util.List;
import java.util.Objects;

/**
 * One metric family: its metadata lines and its samples, in the order served.
 *
 * <p>The family name is as the {@code # TYPE} line gives it, so a counter is {@code x_total} in 0.0.4 and
 * {@code x} in OpenMetrics while its samples are {@code x_total} in both: match on {@link Sample#name()}, which is
 * the same in both formats.
 *
 * @param name    the family name
 * @param type    its type, {@link MetricType#UNTYPED} when no {@code # TYPE} line was given
 * @param help    the {@code # HELP} text unescaped, or null
 * @param unit    the OpenMetrics {@code # UNIT}, or null
 * @param samples its samples, in the order served
 */
public record MetricFamily(String name, MetricType type, String help, String unit, List<Sample> samples) {

    public MetricFamily {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        samples = List.copyOf(samples);
    }
}

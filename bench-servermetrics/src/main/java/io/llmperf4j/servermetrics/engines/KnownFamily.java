package io.llmperf4j.servermetrics.engines;

import java.util.List;
import java.util.Objects;

/**
 * One row of the table: a family of one engine that plays one role.
 *
 * @param engine the engine that serves it
 * @param role   what it measures
 * @param name   the family's name without suffixes: a counter without {@code _total}, a histogram without
 *               {@code _bucket}/{@code _sum}/{@code _count}
 * @param kind   how its samples are read
 * @param note   why it is there, for the reader of the table (older names, units)
 */
public record KnownFamily(ServerEngine engine, MetricRole role, String name, Kind kind, String note) {

    /** How a family's samples are read. */
    public enum Kind {
        /** One sample per series, {@code name}. */
        GAUGE,
        /** {@code name_total}, or plain {@code name} where the server omits the suffix (TGI, some vLLM builds). */
        COUNTER,
        /** {@code name_bucket{le}}, {@code name_sum}, {@code name_count}. */
        HISTOGRAM,
        /** A histogram's {@code name_sum} read as a counter (TGI's generated tokens per request). */
        HISTOGRAM_SUM
    }

    public KnownFamily {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
    }

    /** The sample names that carry this family's value, in the order to try them. */
    public List<String> valueSampleNames() {
        return switch (kind) {
            case GAUGE -> List.of(name);
            case COUNTER -> List.of(name + "_total", name);
            case HISTOGRAM -> List.of(name + "_bucket");
            case HISTOGRAM_SUM -> List.of(name + "_sum");
        };
    }

    /** True when a sample of this name belongs to this family. */
    public boolean owns(String sampleName) {
        return switch (kind) {
            case GAUGE -> sampleName.equals(name);
            case COUNTER -> sampleName.equals(name) || sampleName.equals(name + "_total");
            case HISTOGRAM, HISTOGRAM_SUM -> sampleName.equals(name + "_bucket") || sampleName.equals(name + "_sum")
                    || sampleName.equals(name + "_count");
        };
    }
}

package io.llmperf4j.servermetrics.exposition;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One parsed {@code /metrics} body.
 *
 * @param format   the format it was parsed as
 * @param families its families, in the order served
 */
public record Exposition(ExpositionFormat format, List<MetricFamily> families) {

    private static final String CREATED = "_created";

    public Exposition {
        Objects.requireNonNull(format, "format");
        families = List.copyOf(families);
    }

    /** The family named {@code name}, or null. */
    public MetricFamily family(String name) {
        for (MetricFamily f : families) {
            if (f.name().equals(name)) return f;
        }
        return null;
    }

    /** Every sample of every family, in the order served. */
    public List<Sample> samples() {
        List<Sample> all = new ArrayList<>();
        for (MetricFamily f : families) all.addAll(f.samples());
        return all;
    }

    public int sampleCount() {
        int n = 0;
        for (MetricFamily f : families) n += f.samples().size();
        return n;
    }

    /**
     * This exposition without creation times. Python's prometheus_client writes, for each counter, histogram and
     * summary, when it was created: in 0.0.4 as a separate gauge family {@code x_created}, in OpenMetrics as
     * {@code x_created} samples inside the family. They are wall-clock constants, not measurements, and would
     * only clutter the timeline. A family is dropped only when its base family is there too, so a metric that
     * merely ends in {@code _created} (and has no base) is kept.
     */
    public Exposition withoutCreated() {
        Set<String> bases = families.stream()
                .filter(f -> f.type() == MetricType.COUNTER || f.type() == MetricType.HISTOGRAM
                        || f.type() == MetricType.SUMMARY || f.type() == MetricType.GAUGE_HISTOGRAM)
                .map(f -> stripTotal(f.name()))
                .collect(Collectors.toSet());
        List<MetricFamily> kept = new ArrayList<>(families.size());
        for (MetricFamily f : families) {
            if (f.name().endsWith(CREATED) && f.type() != MetricType.COUNTER
                    && bases.contains(f.name().substring(0, f.name().length() - CREATED.length()))) {
                continue;
            }
            String ownCreated = stripTotal(f.name()) + CREATED;
            if (f.samples().stream().anyMatch(s -> s.name().equals(ownCreated))) {
                f = new MetricFamily(f.name(), f.type(), f.help(), f.unit(),
                        f.samples().stream().filter(s -> !s.name().equals(ownCreated)).toList());
            }
            kept.add(f);
        }
        return new Exposition(format, kept);
    }

    private static String stripTotal(String name) {
        return name.endsWith("_total") ? name.substring(0, name.length() - "_total".length()) : name;
    }
}

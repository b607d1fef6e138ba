package io.llmperf4j.report.html;

import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * The sweep section of the report: one {@link SweepLevel} per level in sweep order, and what the sweep says about
 * the service as indices into {@code levels} (empty when not reached). The report draws throughput and latency
 * against load with these levels marked and prints the sweep table.
 *
 * @param levels            the levels, in sweep order (at least one)
 * @param saturationIndex   the saturation point: output tok/s stopped growing (e.g. by less than 5 %)
 * @param ttftRedLineIndex  the TTFT red line: TTFT p90 jumped (queueing)
 * @param firstFailingIndex the first level with a failed request: the service cannot hold it
 * @param notes             plain-English lines shown under the sweep (the verdict's wording, warnings); may be empty
 */
public record SweepReport(List<SweepLevel> levels, OptionalInt saturationIndex, OptionalInt ttftRedLineIndex,
                          OptionalInt firstFailingIndex, List<String> notes) {

    public SweepReport {
        levels = List.copyOf(levels);
        if (levels.isEmpty()) throw new IllegalArgumentException("a sweep needs at least one level");
        Objects.requireNonNull(saturationIndex, "saturationIndex");
        Objects.requireNonNull(ttftRedLineIndex, "ttftRedLineIndex");
        Objects.requireNonNull(firstFailingIndex, "firstFailingIndex");
        notes = notes == null ? List.of() : List.copyOf(notes);
        check("saturationIndex", saturationIndex, levels.size());
        check("ttftRedLineIndex", ttftRedLineIndex, levels.size());
        check("firstFailingIndex", firstFailingIndex, levels.size());
        String unit = levels.get(0).loadUnit();
        for (SweepLevel level : levels) {
            if (!level.loadUnit().equals(unit)) {
                throw new IllegalArgumentException("sweep levels mix load units ('" + unit + "' and '"
                        + level.loadUnit() + "')");
            }
        }
    }

    /** Levels only, no verdict. */
    public static SweepReport of(List<SweepLevel> levels) {
        return new SweepReport(levels, OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(), List.of());
    }

    /** The unit of the load axis. */
    public String loadUnit() {
        return levels.get(0).loadUnit();
    }

    private static void check(String name, OptionalInt index, int size) {
        if (index.isPresent() && (index.getAsInt() < 0 || index.getAsInt() >= size)) {
            throw new IllegalArgumentException(name + " (" + index.getAsInt() + ") must be in [0, " + size + ")");
        }
    }
}

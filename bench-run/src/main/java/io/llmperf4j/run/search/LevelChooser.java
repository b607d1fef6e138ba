package io.llmperf4j.run.search;

import java.util.OptionalDouble;

/**
 * Which level a search probes next: ×2 from the start while levels pass (the last step clamped to the maximum),
 * then bisection of the bracket between the highest passing and the lowest failing level until it is no wider than
 * {@code tolerance} × the passing level (and, for concurrency, at least 1: integer levels end on adjacent values).
 */
public final class LevelChooser {
    private final SearchPlan plan;
    private final boolean integer;
    private double passed = Double.NaN; // highest passing level
    private double failed = Double.NaN; // lowest failing level
    private double last = Double.NaN;

    public LevelChooser(SearchPlan plan) {
        this.plan = plan;
        this.integer = plan.mode() == SearchPlan.Mode.CONCURRENCY;
    }

    /** The next level, or empty when the search is over. */
    public OptionalDouble next() {
        if (Double.isNaN(last)) return OptionalDouble.of(plan.start());
        if (Double.isNaN(failed)) { // growing
            if (passed >= plan.max()) return OptionalDouble.empty();
            double grown = Math.min(plan.max(), passed * 2);
            return OptionalDouble.of(integer ? Math.min(plan.max(), Math.max(passed + 1, Math.round(grown))) : grown);
        }
        if (Double.isNaN(passed)) return OptionalDouble.empty(); // the first level failed
        double gap = failed - passed;
        if (gap <= (integer ? Math.max(1, Math.floor(plan.tolerance() * passed)) : plan.tolerance() * passed)) {
            return OptionalDouble.empty();
        }
        double mid = integer ? Math.floor((passed + failed) / 2) : (passed + failed) / 2;
        return OptionalDouble.of(mid);
    }

    /** Tells the verdict of {@code level}. */
    public void record(double level, boolean pass) {
        last = level;
        if (pass) {
            if (Double.isNaN(passed) || level > passed) passed = level;
        } else if (Double.isNaN(failed) || level < failed) {
            failed = level;
        }
    }

    /** Whether the search is growing (no level failed yet). */
    public boolean growing() {
        return Double.isNaN(failed);
    }

    /** The highest passing level, or NaN. */
    public double passed() {
        return passed;
    }

    /** The lowest failing level, or NaN. */
    public double failed() {
        return failed;
    }
}

package io.llmperf4j.run.search;

import io.llmperf4j.report.metrics.SloObjectives;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.function.DoublePredicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LevelChooserTest {
    private static final SloObjectives SLO = SloObjectives.parse("ttft_p99<=300ms");

    /** The levels probed against a server that passes exactly when {@code passes}. */
    private static List<Double> probe(SearchPlan plan, DoublePredicate passes) {
        LevelChooser chooser = new LevelChooser(plan);
        List<Double> levels = new ArrayList<>();
        for (OptionalDouble next = chooser.next(); next.isPresent(); next = chooser.next()) {
            levels.add(next.getAsDouble());
            chooser.record(next.getAsDouble(), passes.test(next.getAsDouble()));
            assertTrue(levels.size() < 50, levels::toString);
        }
        return levels;
    }

    @Test
    void concurrencyDoublesThenBisectsToTheExactValue() {
        SearchPlan plan = SearchPlan.of(SearchPlan.Mode.CONCURRENCY, SLO.objectives());
        assertEquals(List.of(1.0, 2.0, 4.0, 8.0, 6.0, 5.0), probe(plan, c -> c <= 4));
        for (int k = 1; k < 40; k++) { // from 40 on, 5 % of the capacity is 2 or more
            int capacity = k;
            LevelChooser chooser = new LevelChooser(plan);
            for (OptionalDouble next = chooser.next(); next.isPresent(); next = chooser.next()) {
                chooser.record(next.getAsDouble(), next.getAsDouble() <= capacity);
            }
            assertEquals(capacity, chooser.passed(), "exact below 1 / tolerance");
            assertEquals(capacity + 1, chooser.failed());
        }
    }

    @Test
    void rateBisectsToTheTolerance() {
        SearchPlan plan = SearchPlan.of(SearchPlan.Mode.RATE, SLO.objectives()).withRange(8, 1000);
        List<Double> levels = probe(plan, r -> r <= 26.67);
        assertEquals(List.of(8.0, 16.0, 32.0, 24.0, 28.0, 26.0, 27.0), levels);
    }

    @Test
    void edgesOfTheRange() {
        SearchPlan plan = SearchPlan.of(SearchPlan.Mode.CONCURRENCY, SLO.objectives()).withRange(2, 12);
        assertEquals(List.of(2.0), probe(plan, c -> false), "below the range: one level");
        assertEquals(List.of(2.0, 4.0, 8.0, 12.0), probe(plan, c -> true), "above: the last step is the maximum");
    }
}

package io.llmperf4j.engine.load;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SaturationVerdictTest {

    private static LevelSummary level(double c, int ok, int total, double tps, double ttftP90) {
        return new LevelSummary(c, ok, total, tps, ok / 10.0, ttftP90 / 2, ttftP90, 1000, 2000);
    }

    /** The seed guide's sweep 1,5,10,20,50: gains +350 %, +78 %, +2.5 %, −15 %. */
    private static final List<LevelSummary> SWEEP = List.of(
            level(1, 50, 50, 100, 100),
            level(5, 50, 50, 450, 120),
            level(10, 50, 50, 800, 400),   // TTFT p90 × 3.33: red line
            level(20, 48, 50, 820, 450),   // +2.5 %: saturated; first failures
            level(50, 7, 50, 700, 3000));  // falls; 7 successes: warning

    @Test
    void findsSaturationRedLineFailuresAndFewSamples() {
        SaturationVerdict v = SaturationVerdict.evaluate(SWEEP, SaturationRules.DEFAULT);
        assertEquals(OptionalInt.of(3), v.saturationIndex());
        assertEquals(OptionalDouble.of(20), v.saturationLevel());
        assertEquals(OptionalInt.of(2), v.ttftRedLineIndex());
        assertEquals(OptionalDouble.of(10), v.ttftRedLineLevel());
        assertEquals(OptionalInt.of(3), v.firstFailingIndex());
        assertEquals(List.of("level 50: only 7 successful requests (< 10): its percentiles are unstable; run more "
                + "requests"), v.warnings());

        List<SaturationVerdict.LevelVerdict> l = v.levels();
        assertTrue(Double.isNaN(l.get(0).throughputGain()));
        assertEquals(3.5, l.get(1).throughputGain(), 1e-12);
        assertEquals(0.025, l.get(3).throughputGain(), 1e-12);
        assertEquals(-120.0 / 820, l.get(4).throughputGain(), 1e-12);
        assertTrue(l.get(4).saturated()); // a fall counts too
        assertEquals(400.0 / 120, l.get(2).ttftP90Ratio(), 1e-12);
        assertTrue(l.get(4).ttftJump()); // 3000 / 450 = 6.7×, after the first
        assertFalse(l.get(1).fewSamples());
        assertTrue(l.get(4).fewSamples());
    }

    @Test
    void thresholdsAreConfigurable() {
        SaturationVerdict v = SaturationVerdict.evaluate(SWEEP, new SaturationRules(0.01, 10, 50));
        assertEquals(OptionalInt.of(4), v.saturationIndex()); // +2.5 % passes a 1 % threshold; the fall does not
        assertEquals(OptionalInt.empty(), v.ttftRedLineIndex()); // no 10× jump
        assertEquals(2, v.warnings().size()); // 48 and 7 successes are below 50
        assertTrue(v.warnings().get(0).startsWith("level 20: only 48 successful requests (< 50)"));
    }

    @Test
    void aGainOfExactlyTheThresholdIsNotSaturation() {
        List<LevelSummary> levels = List.of(level(1, 20, 20, 100, 10), level(2, 20, 20, 105, 29.99),
                level(4, 20, 20, 105, 90));
        SaturationVerdict v = SaturationVerdict.evaluate(levels, SaturationRules.DEFAULT);
        assertEquals(OptionalInt.of(2), v.saturationIndex()); // +5 % exactly is growth; +0 % is not
        assertEquals(OptionalInt.of(2), v.ttftRedLineIndex()); // 2.999× is no jump, 3.0× is
        assertEquals(OptionalInt.empty(), v.firstFailingIndex());
        assertTrue(v.warnings().isEmpty());
    }

    @Test
    void levelsWithoutSuccessesAreHandled() {
        LevelSummary none = new LevelSummary(8, 0, 10, 0, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        List<LevelSummary> levels = List.of(level(1, 20, 20, 100, 10), none, level(16, 20, 20, 300, 10));
        SaturationVerdict v = SaturationVerdict.evaluate(levels, SaturationRules.DEFAULT);
        assertEquals(OptionalInt.of(1), v.saturationIndex()); // −100 %
        assertEquals(OptionalInt.of(1), v.firstFailingIndex());
        assertTrue(Double.isNaN(v.levels().get(2).throughputGain())); // after 0 tok/s: not judged
        assertTrue(Double.isNaN(v.levels().get(1).ttftP90Ratio()));
        assertEquals(1, v.warnings().size());
        assertTrue(v.warnings().get(0).startsWith("level 8: only 0 successful requests"));
    }

    @Test
    void describesTheVerdictForAConsole() {
        List<String> lines = SaturationVerdict.evaluate(SWEEP, SaturationRules.DEFAULT).describe("concurrency");
        assertEquals("saturation point: concurrency 20 (output tok/s +2.5 % over concurrency 10; threshold 5.0 %)",
                lines.get(0));
        assertEquals("TTFT red line: concurrency 10 (TTFT p90 3.3x concurrency 5; threshold 3.0x)", lines.get(1));
        assertEquals("first level with failures: concurrency 20 (the service cannot hold it)", lines.get(2));
        assertTrue(lines.get(3).startsWith("warning: level 50"));
        List<String> calm = SaturationVerdict.evaluate(List.of(level(1, 20, 20, 100, 10)), SaturationRules.DEFAULT)
                .describe("rate");
        assertEquals(List.of("saturation point: not reached (output tok/s grew by at least 5.0 % at every level)",
                "TTFT red line: not crossed (no TTFT p90 jump of 3.0x or more)", "failures: none"), calm);
    }

    @Test
    void levelsAreNamedAsTheSweepTableNamesThem() {
        // a concurrency sweep's few-samples warning says "concurrency 50", not "level 50"
        assertEquals(List.of("concurrency 50: only 7 successful requests (< 10): its percentiles are unstable; run "
                + "more requests"), SaturationVerdict.evaluate(SWEEP, SaturationRules.DEFAULT, "concurrency")
                .warnings());
        // a rate sweep's verdict and warning name "rate 2 req/s"
        List<LevelSummary> rates = List.of(level(1, 50, 50, 100, 100), level(2, 3, 50, 101, 400));
        SaturationVerdict v = SaturationVerdict.evaluate(rates, SaturationRules.DEFAULT, "rate");
        assertEquals(List.of("saturation point: rate 2 req/s (output tok/s +1.0 % over rate 1 req/s; threshold "
                        + "5.0 %)", "TTFT red line: rate 2 req/s (TTFT p90 4.0x rate 1 req/s; threshold 3.0x)",
                "first level with failures: rate 2 req/s (the service cannot hold it)",
                "warning: rate 2 req/s: only 3 successful requests (< 10): its percentiles are unstable; run more "
                        + "requests"), v.describe("rate"));
    }

    @Test
    void rulesAreValidated() {
        assertEquals("ttftJumpFactor (1.0) must be > 1 and finite", assertThrows(IllegalArgumentException.class,
                () -> SaturationRules.DEFAULT.withTtftJumpFactor(1.0)).getMessage());
        assertEquals("minSuccessfulSamples (-1) must be >= 0", assertThrows(IllegalArgumentException.class,
                () -> SaturationRules.DEFAULT.withMinSuccessfulSamples(-1)).getMessage());
    }
}

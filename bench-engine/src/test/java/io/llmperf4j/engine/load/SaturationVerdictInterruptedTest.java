package io.llmperf4j.engine.load;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Levels a stop (Ctrl-C, SIGTERM) cut short are not judged: the QA's sweeps where the client's cancellations
 * became "the service cannot hold it", an aborted 0/2 level a saturation point and a one-sample aborted level the
 * TTFT red line's baseline.
 */
class SaturationVerdictInterruptedTest {

    private static LevelSummary level(double c, int ok, int total, double tps, double ttftP90) {
        return new LevelSummary(c, ok, total, tps, ok / 10.0, ttftP90 / 2, ttftP90, 1000, 2000);
    }

    @Test
    void anAbortedLevelsCancellationsAreNotTheServicesFailures() {
        // concurrency 1 aborted: 1 ok, 1 cancelled; the server returned no error anywhere
        List<LevelSummary> levels = List.of(level(1, 1, 2, 50, 100), level(2, 20, 20, 200, 110));
        SaturationVerdict v = SaturationVerdict.evaluate(levels, List.of(true, false), SaturationRules.DEFAULT);
        assertTrue(v.firstFailingIndex().isEmpty(), v.describe("concurrency")::toString);
        assertTrue(v.levels().get(0).interrupted());
        assertFalse(v.levels().get(0).failures());
        List<String> lines = v.describe("concurrency");
        assertTrue(lines.contains("failures: none in the levels judged"), lines::toString);
        assertTrue(lines.contains("interrupted: concurrency 1 was stopped (Ctrl-C or SIGTERM) and is not judged: "
                + "its cancelled requests are not the service's failures"), lines::toString);
        // judged as before, it was the first failing level
        assertEquals(0, SaturationVerdict.evaluate(levels, SaturationRules.DEFAULT).firstFailingIndex().getAsInt());
    }

    @Test
    void anAbortedLevelWithNothingDoneIsNoSaturationPointAndNoBaseline() {
        List<LevelSummary> levels = List.of(
                level(1, 20, 20, 100, 100),
                level(2, 0, 2, 0, Double.NaN),    // aborted: 0/2 ok, 0 tok/s
                level(4, 1, 3, 30, 900),          // aborted: one sample, slow
                level(8, 20, 20, 380, 130));
        SaturationVerdict v = SaturationVerdict.evaluate(levels, List.of(false, true, true, false),
                SaturationRules.DEFAULT);
        assertTrue(v.saturationIndex().isEmpty(), v.describe("concurrency")::toString);
        assertTrue(v.ttftRedLineIndex().isEmpty(), v.describe("concurrency")::toString);
        assertTrue(v.firstFailingIndex().isEmpty());
        // concurrency 8 is compared with concurrency 1, the last level that ran to its end
        assertEquals(2.8, v.levels().get(3).throughputGain(), 1e-9);
        assertEquals(1.3, v.levels().get(3).ttftP90Ratio(), 1e-9);
        assertTrue(Double.isNaN(v.levels().get(1).throughputGain()));
        assertFalse(v.levels().get(2).fewSamples(), "an interrupted level has no few-samples warning");
        assertEquals(0, v.warnings().size(), v.warnings()::toString);
    }

    @Test
    void aSaturationAfterAnAbortedLevelNamesTheLevelItWasComparedWith() {
        List<LevelSummary> levels = List.of(level(1, 20, 20, 100, 100), level(2, 3, 5, 40, 100),
                level(4, 20, 20, 101, 500));
        SaturationVerdict v = SaturationVerdict.evaluate(levels, List.of(false, true, false), SaturationRules.DEFAULT);
        assertEquals(2, v.saturationIndex().getAsInt());
        assertEquals(2, v.ttftRedLineIndex().getAsInt());
        List<String> lines = v.describe("concurrency");
        assertTrue(lines.get(0).contains("over concurrency 1;"), lines::toString);
        assertTrue(lines.get(1).startsWith("knee: concurrency 1, "), lines::toString);
        assertTrue(lines.get(2).contains("5.0x concurrency 1;"), lines::toString);
    }

    @Test
    void oneFlagPerLevel() {
        assertThrows(IllegalArgumentException.class, () -> SaturationVerdict.evaluate(
                List.of(level(1, 1, 1, 1, 1)), List.of(), SaturationRules.DEFAULT));
    }
}

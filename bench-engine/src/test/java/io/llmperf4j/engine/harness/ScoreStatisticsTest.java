package io.llmperf4j.engine.harness;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ScoreStatisticsTest {

    /** scipy.stats.t.ppf(0.9995, 4), an independent implementation. */
    private static final double T_0_9995_DF4 = 8.610301581379522;

    @Test
    void studentTErrorMatchesKnownValues() {
        ScoreStatistics s = ScoreStatistics.of(1, 2, 3, 4, 5);
        assertEquals(5, s.n());
        assertEquals(3.0, s.mean(), 0);
        assertEquals(2.5, s.variance(), 1e-15);
        assertEquals(Math.sqrt(2.5), s.standardDeviation(), 1e-15);
        // t(0.9995, 4) · s / √5 = 8.610301581379522 · 1.5811388300841898 / 2.23606797749979
        double expected = T_0_9995_DF4 * Math.sqrt(2.5) / Math.sqrt(5);
        assertEquals(6.088402636254714, expected, 1e-12);
        assertEquals(expected, s.error(), 1e-9);
        assertArrayEquals(new double[] {3 - expected, 3 + expected}, s.confidenceInterval(), 1e-9);
        // other confidence levels: t(0.975, 4) = 2.7764451051977987
        assertEquals(2.7764451051977987 * Math.sqrt(0.5), s.errorAt(0.95), 1e-9);
    }

    @Test
    void sixIterationsAsInTwoForksOfThree() {
        // numpy/scipy: mean 804.8333…, sd 10.37745954782126, error 29.100334329258764
        ScoreStatistics s = ScoreStatistics.of(812.5, 790.25, 805.0, 799.75, 820.0, 801.5);
        assertEquals(804.8333333333334, s.mean(), 1e-9);
        assertEquals(10.37745954782126, s.standardDeviation(), 1e-9);
        assertEquals(29.100334329258764, s.error(), 1e-7);
    }

    @Test
    void errorIsNaNBelowTwoScores() {
        assertTrue(Double.isNaN(ScoreStatistics.of().mean()));
        assertTrue(Double.isNaN(ScoreStatistics.of().error()));
        ScoreStatistics one = ScoreStatistics.of(42);
        assertEquals(42, one.mean());
        assertTrue(Double.isNaN(one.error()));
        assertTrue(Double.isNaN(one.confidenceInterval()[0]));
        // two scores: defined, wide: t(0.9995, 1) = 636.6192487687897
        ScoreStatistics two = ScoreStatistics.of(10, 12);
        assertEquals(636.6192487687897 * Math.sqrt(2) / Math.sqrt(2), two.error(), 1e-6);
        assertEquals(1, ScoreStatistics.of(Double.NaN, 7).n()); // NaN scores are left out
    }

    @Test
    void percentilesFollowJmh() {
        ScoreStatistics s = ScoreStatistics.of(5, 1, 4, 2, 3);
        assertEquals(1, s.percentile(0));
        assertEquals(3, s.percentile(50));
        assertEquals(5, s.percentile(100));
        assertEquals(5, s.percentile(99.9));
        assertTrue(Double.isNaN(ScoreStatistics.of().percentile(50)));
        assertThrows(IllegalArgumentException.class, () -> s.errorAt(1.0));
    }
}

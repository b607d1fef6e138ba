package io.llmperf4j.report.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Expected values were printed by pandas 1.5.3 / numpy 1.24 (the tests never run Python). */
class PandasStatsTest {

    private static final double[] SAMPLE = {3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0};

    @Test
    void quantilesInterpolateLinearlyAtNMinusOneTimesQ() {
        double[] sorted = SAMPLE.clone();
        Arrays.sort(sorted); // 1 1 2 3 4 5 6 9
        // position (8-1)*0.25 = 1.75 -> 1 + 0.75*(2-1)
        assertEquals(1.75, PandasStats.quantile(sorted, 0.25));
        assertEquals(3.5, PandasStats.quantile(sorted, 0.5));
        assertEquals(5.25, PandasStats.quantile(sorted, 0.75));
        // pandas: 6.8999999999999995, not 6.9 (numpy lerps from the upper neighbour when the fraction >= 0.5)
        assertEquals(6.8999999999999995, PandasStats.quantile(sorted, 0.9));
        assertEquals(7.949999999999998, PandasStats.quantile(sorted, 0.95));
        assertEquals(8.79, PandasStats.quantile(sorted, 0.99));
    }

    @Test
    void meanAndSampleStddev() {
        assertEquals(3.875, PandasStats.mean(SAMPLE));
        assertEquals(2.748376143938713, PandasStats.sampleStddev(SAMPLE));
        assertEquals(1.0, PandasStats.min(SAMPLE));
        assertEquals(9.0, PandasStats.max(SAMPLE));
    }

    @Test
    void oneValueHasNoSampleStddev() {
        double[] one = {0.25};
        assertEquals(Double.NaN, PandasStats.sampleStddev(one));
        assertEquals(0.25, PandasStats.mean(one));
        assertEquals(0.25, PandasStats.quantile(one, 0.99));
    }

    @Test
    void emptySeriesGivesNaNEverywhere() {
        double[] none = {};
        assertEquals(Double.NaN, PandasStats.mean(none));
        assertEquals(Double.NaN, PandasStats.sampleStddev(none));
        assertEquals(Double.NaN, PandasStats.min(none));
        assertEquals(Double.NaN, PandasStats.max(none));
        assertEquals(Double.NaN, PandasStats.quantile(none, 0.5));
        assertEquals(0.0, PandasStats.sum(none));
    }

    /** Pairwise summation in 8192-element chunks, as numpy.sum; a plain loop differs in the last bits. */
    @Test
    void sumFollowsNumpyPairwiseOrder() {
        double[] values = new double[20_000];
        double naive = 0;
        for (int i = 0; i < values.length; i++) {
            values[i] = i * 0.1 + 1.0 / (i + 1);
            naive += values[i];
        }
        // numpy: float(np.sum(np.array([i * 0.1 + 1.0 / (i + 1) for i in range(20000)])))
        assertEquals(19999010.48072822, PandasStats.sum(values));
        assertNotEquals(naive, PandasStats.sum(values), "the naive loop differs, else this test proves nothing");
        // pandas: Series(values).mean() and .std()
        assertEquals(999.950524036411, PandasStats.mean(values));
        assertEquals(577.3639683201056, PandasStats.sampleStddev(values));
    }
}

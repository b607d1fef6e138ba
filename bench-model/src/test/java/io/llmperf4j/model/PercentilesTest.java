package io.llmperf4j.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PercentilesTest {

    @Test
    void numpyLinearInterpolation() {
        // numpy.percentile([1, 2, 3, 4], [0, 25, 50, 90, 99, 100]) = 1, 1.75, 2.5, 3.7, 3.97, 4
        double[] values = {4, 1, 3, 2};
        assertEquals(1.0, Percentiles.of(values, 0));
        assertEquals(1.75, Percentiles.of(values, 25));
        assertEquals(2.5, Percentiles.of(values, 50));
        assertEquals(3.7, Percentiles.of(values, 90), 1e-15);
        assertEquals(3.97, Percentiles.of(values, 99), 1e-15);
        assertEquals(4.0, Percentiles.of(values, 100));
        assertEquals(7.0, Percentiles.of(new long[] {7}, 99.9));
        assertTrue(Double.isNaN(Percentiles.of(new double[0], 50)));
    }

    @Test
    void integerAndDoubleInputsAgreeBitForBit() {
        long[] nanos = {1_025_040_123L, 1_025_507_999L, 998_000_001L, 1_100_000_000L, 1_000_000_007L};
        double[] asDoubles = new double[nanos.length];
        for (int i = 0; i < nanos.length; i++) asDoubles[i] = nanos[i];
        for (double p : new double[] {50, 90, 95, 99, 99.9}) {
            assertEquals(Percentiles.of(asDoubles, p), Percentiles.of(nanos, p));
        }
    }

    @Test
    void infinityIsAValueNotANaN() {
        // an SLO verdict counts a failure as +inf: a percentile on a finite value is that value, past it +inf
        double inf = Double.POSITIVE_INFINITY;
        double[] sorted = {100, 300, 320, inf};
        assertEquals(310.0, Percentiles.ofSorted(sorted, 50));
        assertEquals(320.0, Percentiles.ofSorted(sorted, 200.0 / 3)); // position 2 exactly: 320, not 320 + inf * 0
        assertEquals(inf, Percentiles.ofSorted(sorted, 90));
        assertEquals(inf, Percentiles.ofSorted(new double[] {inf, inf}, 50));
        assertEquals(inf, Percentiles.ofSorted(new double[] {1, inf, inf}, 99));
    }
}

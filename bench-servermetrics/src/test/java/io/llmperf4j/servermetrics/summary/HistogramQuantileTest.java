package io.llmperf4j.servermetrics.summary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class HistogramQuantileTest {

    private static final double INF = Double.POSITIVE_INFINITY;
    private static final double[] BOUNDS = {0.1, 0.2, 0.4, INF};
    private static final double[] COUNTS = {10, 60, 90, 100};

    @Test
    void interpolatesLinearlyInsideTheBucketAsPrometheusDoes() {
        assertEquals(0.05, HistogramQuantile.quantile(0.05, BOUNDS, COUNTS), 1e-12);
        assertEquals(0.18, HistogramQuantile.quantile(0.50, BOUNDS, COUNTS), 1e-12);
        assertEquals(0.4, HistogramQuantile.quantile(0.90, BOUNDS, COUNTS), 1e-12);
        assertEquals(0.1, HistogramQuantile.quantile(0.10, BOUNDS, COUNTS), 1e-12);
    }

    @Test
    void rankInThePlusInfBucketIsTheHighestFiniteBound() {
        assertEquals(0.4, HistogramQuantile.quantile(0.99, BOUNDS, COUNTS));
        assertEquals(0.4, HistogramQuantile.quantile(1.0, BOUNDS, COUNTS));
    }

    @Test
    void firstBucketWithNonPositiveBoundIsThatBound() {
        assertEquals(-1.0, HistogramQuantile.quantile(0.5, new double[] {-1, 1, INF}, new double[] {10, 10, 10}));
    }

    @Test
    void nonMonotonicCountsAreMadeMonotonic() {
        assertEquals(0.18, HistogramQuantile.quantile(0.5, BOUNDS, new double[] {10, 60, 55, 100}), 1e-12);
    }

    @Test
    void undefinedCasesAreNaNOrInfinite() {
        assertTrue(Double.isNaN(HistogramQuantile.quantile(0.5, BOUNDS, new double[] {0, 0, 0, 0})));
        assertTrue(Double.isNaN(HistogramQuantile.quantile(0.5, new double[] {0.1, 0.2}, new double[] {1, 2})));
        assertTrue(Double.isNaN(HistogramQuantile.quantile(0.5, new double[] {INF}, new double[] {3})));
        assertTrue(Double.isNaN(HistogramQuantile.quantile(Double.NaN, BOUNDS, COUNTS)));
        assertEquals(Double.NEGATIVE_INFINITY, HistogramQuantile.quantile(-0.1, BOUNDS, COUNTS));
        assertEquals(INF, HistogramQuantile.quantile(1.1, BOUNDS, COUNTS));
    }
}

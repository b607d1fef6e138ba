package io.llmperf4j.servermetrics.summary;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The bucket a quantile is interpolated in, kept beside it so a reader sees how wide the estimate is. */
class HistogramQuantileBucketTest {
    private static final double[] BOUNDS = {0.02, 0.04, 0.06, 0.1, Double.POSITIVE_INFINITY};

    @Test
    void theMedianOfObservationsBetween40And60MsLiesInThatBucket() {
        // 10 in 20-40 ms, 30 in 40-60 ms: p50 (rank 20) interpolates to 46.7 ms, anywhere in 40-60 ms
        double[] counts = {0, 10, 40, 40, 40};
        assertArrayEquals(new double[] {0.04, 0.06}, HistogramQuantile.bucket(0.5, BOUNDS, counts), 1e-12);
        assertArrayEquals(new double[] {0.02, 0.04}, HistogramQuantile.bucket(0.2, BOUNDS, counts), 1e-12);
        assertArrayEquals(new double[] {0, 0.02}, HistogramQuantile.bucket(0.5, BOUNDS,
                new double[] {10, 10, 10, 10, 10}), 1e-12);
    }

    @Test
    void aRankInThePlusInfBucketHasNoUpperBound() {
        double[] counts = {0, 0, 0, 1, 10};
        assertArrayEquals(new double[] {0.1, Double.POSITIVE_INFINITY}, HistogramQuantile.bucket(0.99, BOUNDS, counts));
    }

    @Test
    void noObservationsNoBucket() {
        assertNull(HistogramQuantile.bucket(0.5, BOUNDS, new double[5]));
    }
}

package io.llmperf4j.report.compare;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** Welch's t interval of the difference of two means, against scipy's {@code ttest_ind(b, a, equal_var=False)}. */
class WelchIntervalTest {

    private static final double[] A = {100, 102, 104};
    private static final double[] B = {110, 111, 112};

    @Test
    void theWorkedExampleMatchesScipy() {
        // scipy 1.17: ttest_ind(b, a, equal_var=False).confidence_interval(0.95) = (4.8446004968, 13.1553995032)
        ConfidenceInterval[] ci = WelchInterval.of(A, B, 0.95);
        assertEquals(4.8446004968, ci[0].lower(), 1e-8);
        assertEquals(13.1553995032, ci[0].upper(), 1e-8);
        assertEquals(0.95, ci[0].level());
        // the relative interval is the absolute one over the baseline mean, 102
        assertEquals(4.8446004968 / 102 * 100, ci[1].lower(), 1e-8);
        assertEquals(13.1553995032 / 102 * 100, ci[1].upper(), 1e-8);
        // at the harness's 99.9 % (t = 13.369 for 2.94 degrees of freedom) three iterations a side cannot show it
        ConfidenceInterval[] wide = WelchInterval.of(A, B, WelchInterval.HARNESS_CONFIDENCE);
        assertEquals(-8.2596715, wide[0].lower(), 1e-6);
        assertEquals(26.2596715, wide[0].upper(), 1e-6);
    }

    @Test
    void fewerThanThreeValuesOnASideGiveNoInterval() {
        ConfidenceInterval[] ci = WelchInterval.of(new double[] {8, 8}, new double[] {5, 5, 5}, 0.999);
        assertNull(ci[0]);
        assertNull(ci[1]);
    }

    @Test
    void sidesWithoutSpreadGiveThePointAndABaselineOfZeroNoRelativeInterval() {
        ConfidenceInterval[] point = WelchInterval.of(new double[] {18, 18, 18}, new double[] {14, 14, 14}, 0.999);
        assertArrayEquals(new double[] {-4, -4}, new double[] {point[0].lower(), point[0].upper()});
        ConfidenceInterval[] fromZero = WelchInterval.of(new double[] {-1, 0, 1}, new double[] {1, 2, 3}, 0.95);
        assertEquals(2.0, (fromZero[0].lower() + fromZero[0].upper()) / 2, 1e-12);
        assertNull(fromZero[1]);
    }

    /** Iterations without spread on both sides: Welch's interval is the point d, which claims nothing. */
    @Test
    void aPointIntervalIsNotSignificantAndSaysSo() {
        ConfidenceInterval[] point = WelchInterval.of(new double[] {45, 45, 45}, new double[] {46, 46, 46}, 0.999);
        MetricDelta d = new MetricDelta(CompareMetric.TTFT, CompareStat.MEAN, 45, 46, 3, 3, 1, 100.0 / 45, point[0],
                point[1]);
        org.junit.jupiter.api.Assertions.assertFalse(d.significant());
        org.junit.jupiter.api.Assertions.assertTrue(d.noVariationMeasured());
        assertEquals("[+2.2%, +2.2%] no variation measured", d.ciText());
    }
}

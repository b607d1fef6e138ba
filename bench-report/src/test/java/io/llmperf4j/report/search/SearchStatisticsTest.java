package io.llmperf4j.report.search;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class SearchStatisticsTest {

    @Test
    void binomialCdfMatchesTheSum() {
        // P(X <= 2), X ~ Bin(10, 0.3) = 0.3827827864
        assertEquals(0.3827827864, SearchStatistics.binomialCdf(2, 10, 0.3), 1e-9);
        // no miss in 299 draws at 1 %: 0.99^299
        assertEquals(Math.pow(0.99, 299), SearchStatistics.binomialCdf(0, 299, 0.01), 1e-12);
        assertEquals(1.0, SearchStatistics.binomialCdf(10, 10, 0.5));
        assertEquals(0.0, SearchStatistics.binomialCdf(-1, 10, 0.5));
    }

    @Test
    void quantileRanksAreTheOrderStatisticBounds() {
        // p99 of 20 samples: the upper end needs more samples than exist; the lower end is the 19th value
        // (P(X <= 18) = 0.0169 <= 0.025 < P(X <= 19) = 0.1821)
        assertArrayEquals(new int[]{19, 21}, SearchStatistics.quantileRanks(20, 0.99, 0.05));
        // 0 misses prove p99 <= bound only from n with 0.99^n <= 0.025: n = 368
        assertEquals(368, SearchStatistics.quantileRanks(368, 0.99, 0.05)[1]);
        assertEquals(367 + 1, SearchStatistics.quantileRanks(367, 0.99, 0.05)[1], "none high enough yet");
        // the median of 100: ranks 40 and 61 (the classic table)
        assertArrayEquals(new int[]{40, 61}, SearchStatistics.quantileRanks(100, 0.5, 0.05));
    }

    @Test
    void wilsonIntervalAsPublished() {
        // 8 of 10: [0.490, 0.943] (Wilson 1927; Newcombe 1998 table)
        double[] ci = SearchStatistics.wilson(8, 10, SearchStatistics.Z95);
        assertEquals(0.4902, ci[0], 1e-4);
        assertEquals(0.9433, ci[1], 1e-4);
        double[] all = SearchStatistics.wilson(380, 380, SearchStatistics.Z95);
        assertEquals(1.0, all[1]);
        assertEquals(380 / (380 + SearchStatistics.Z95 * SearchStatistics.Z95), all[0], 1e-12);
    }
}

package io.llmperf4j.report.metrics;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SENT_LATE's rule on the send lags themselves (the QA's 2,000 req/s run: the pacer fell up to 207 ms behind while
 * the sent rate stayed above the scheduled one, so BEHIND_SCHEDULE could not fire): late beyond the larger of 10 ms
 * and the mean interval between arrivals, for more than 1 % of the arrivals sent and at least 3 of them.
 */
class SentLateRuleTest {

    /** 4,000 arrivals at 2,000 req/s: 800 of them 90 to 207 ms late, the rest 1 ms. */
    @Test
    void aPacerFarBehindItsScheduleIsWarnedWithTheCountAndTheBound() {
        long[] lags = new long[4000];
        for (int i = 0; i < lags.length; i++) lags[i] = i < 800 ? 90_000_000L + i * 146_000L : 1_000_000L;
        RunWarning w = RunWarnings.sentLate(lags, 2000, 0).orElseThrow();
        assertEquals(WarningCode.SENT_LATE, w.code());
        assertTrue(w.message().startsWith("The open loop sent late: 800 of 4000 arrivals sent (20.0 %) went out "
                + "more than 10.00 ms after their scheduled instants (the larger of 10 ms and the mean interval "
                + "between arrivals, 0.50 ms;"), w.message());
        assertTrue(w.message().contains("max 206.65 ms"), w.message());
        assertTrue(w.message().contains("the client could not send at the rate asked for"), w.message());
    }

    /** The bound is the interval between arrivals when longer: at 0.5 req/s a 217 ms lag keeps the pattern. */
    @Test
    void theBoundIsTheIntervalWhenLongerAndOnePercentIsAllowed() {
        long[] lags = {217_000_000L, 1_000L, 2_000L};
        assertEquals(Optional.empty(), RunWarnings.sentLate(lags, 0.5, 2));
        long[] oneInHundredAndOne = new long[101];
        oneInHundredAndOne[0] = 50_000_000L; // 1 of 101 late: within 1 %
        assertEquals(Optional.empty(), RunWarnings.sentLate(oneInHundredAndOne, 100, 0));
        oneInHundredAndOne[1] = 50_000_000L; // 2 of 101: above 1 %, but two late arrivals keep the pattern
        assertEquals(Optional.empty(), RunWarnings.sentLate(oneInHundredAndOne, 100, 4));
        oneInHundredAndOne[2] = 50_000_000L; // 3 of 101: warned
        RunWarning w = RunWarnings.sentLate(oneInHundredAndOne, 100, 4).orElseThrow();
        assertTrue(w.message().contains("3 of 101 arrivals sent (3.0 %)"), w.message());
        assertTrue(w.message().contains("the --max-concurrency 4 cap full waits for a free slot"), w.message());
        assertEquals(Optional.empty(), RunWarnings.sentLate(new long[0], 100, 0));
    }
}

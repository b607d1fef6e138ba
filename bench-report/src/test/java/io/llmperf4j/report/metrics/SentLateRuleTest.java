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

    /**
     * One rule, two sets of sends: an open loop's session starts are SENT_LATE's (bound: the larger of 10 ms and the
     * interval), the turns due at a time the client set TURNS_SENT_LATE's (a flat 10 ms, 2 late at least); each
     * sentence says which sends it judged and names the other.
     */
    @Test
    void sessionStartsAndLaterTurnsShareTheRuleAndNameEachOther() {
        long[] lags = {30_000_000L, 40_000_000L, 1_000L};
        // at 50 sessions/s the interval is 20 ms: 2 of 3 late, too few for SENT_LATE, enough for TURNS_SENT_LATE
        assertEquals(Optional.empty(), RunWarnings.sentLate(lags, 50, 0, true));
        RunWarning turns = RunWarnings.turnsSentLate(lags, 0).orElseThrow();
        assertEquals(WarningCode.TURNS_SENT_LATE, turns.code());
        assertTrue(turns.message().startsWith("Sessions' turns sent late: 2 of 3 turns due at a time the client set "
                + "(a later turn after its think time, a failed session's rest, a closed loop's next session when its "
                + "slot freed) went out more than 10 ms after it (66.7 %); send lag p50 30.00 ms, p99 39.80 ms, max "
                + "40.00 ms."), turns.message());
        assertTrue(turns.message().contains("(an open loop's session starts, due at the schedule's instants, are "
                + "SENT_LATE's)"), turns.message());
        long[] starts = {30_000_000L, 40_000_000L, 50_000_000L, 1_000L};
        RunWarning sent = RunWarnings.sentLate(starts, 50, 0, true).orElseThrow();
        assertTrue(sent.message().startsWith("The open loop sent late: 3 of 4 arrivals (not the sessions' later "
                + "turns) sent (75.0 %) went out more than 20.00 ms after their scheduled instants"), sent.message());
        assertTrue(sent.message().endsWith(" The sessions' later turns, due at a time the client set, are judged "
                + "apart, from their actual send (TURNS_SENT_LATE)."), sent.message());
        assertTrue(RunWarnings.sentLate(starts, 50, 0).orElseThrow().message().contains("3 of 4 arrivals sent "),
                "without sessions, as before");
    }
}

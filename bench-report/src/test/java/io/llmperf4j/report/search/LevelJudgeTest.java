package io.llmperf4j.report.search;

import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.metrics.RequestMetrics;
import io.llmperf4j.report.metrics.SloObjectives;
import io.llmperf4j.report.metrics.TokenCounting;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LevelJudgeTest {
    private static final TokenCounting COUNTING = new TokenCounting(0, true);

    private static RequestMetrics ok(long ttftMs) {
        long ttft = ttftMs * 1_000_000L;
        return RequestMetrics.from(new RequestRecord(0, "r", "c", 0, ttft, ttft + 10_000_000L, ttft + 20_000_000L,
                3, new long[]{ttft, ttft + 5_000_000L, ttft + 10_000_000L}, "abc", 10, 3, 3, 10, 3, "length", null),
                COUNTING);
    }

    private static RequestMetrics failed(FailureKind kind, long e2eMs) {
        return RequestMetrics.from(new RequestRecord(0, "r", null, 0, -1, -1, e2eMs * 1_000_000L, 0, new long[0],
                "", 10, 3, -1, null, null, null, new Failure(kind, kind == FailureKind.CANCELLED ? -1 : 500, "x")),
                COUNTING);
    }

    /** Cancelled by the client at {@code e2eMs}, with content events at {@code eventsMs} (the first is its TTFT). */
    private static RequestMetrics cancelled(long e2eMs, long... eventsMs) {
        long[] events = new long[eventsMs.length];
        for (int i = 0; i < events.length; i++) events[i] = eventsMs[i] * 1_000_000L;
        long ttft = events.length == 0 ? -1 : events[0];
        long last = events.length == 0 ? -1 : events[events.length - 1];
        return RequestMetrics.from(new RequestRecord(0, "r", events.length == 0 ? null : "c", 0, ttft, last,
                e2eMs * 1_000_000L, events.length, events, "x".repeat(events.length), 10, 20, events.length, null,
                null, null, new Failure(FailureKind.CANCELLED, -1, "level ended")), COUNTING);
    }

    private static LevelJudge judge(String slo, int minSamples) {
        return new LevelJudge(SloObjectives.parse(slo).objectives(), minSamples);
    }

    @Test
    void aPercentileFailsResolvedWhenItsLowerBoundIsPastTheLimit() {
        LevelJudge judge = judge("ttft_p99<=300ms", 10);
        for (int i = 0; i < 8; i++) judge.add(ok(100), 0);
        for (int i = 0; i < 2; i++) judge.add(ok(600), 0);
        LevelJudgement j = judge.judge();
        ObjectiveResult r = j.results().get(0);
        assertFalse(j.passed());
        assertTrue(j.resolved(), r.toString()); // 10 samples: the lower end is the 9th, 600 ms
        assertEquals(600.0, r.low());
        assertEquals(2, r.misses());
        assertEquals("ttft_p99<=300ms", j.binding().objective());
    }

    @Test
    void aPercentilePassesResolvedOnlyWithEnoughSamples() {
        LevelJudge judge = judge("ttft_p99<=300ms", 10);
        for (int i = 0; i < 367; i++) judge.add(ok(100), 0);
        LevelJudgement early = judge.judge();
        assertTrue(early.passed());
        assertFalse(early.resolved(), "367 samples cannot show p99 at 95 %");
        judge.add(ok(100), 0);
        assertTrue(judge.judge().resolved());
    }

    @Test
    void beforeTheMinimumNothingIsResolved() {
        LevelJudge judge = judge("ttft_p99<=300ms", 30);
        for (int i = 0; i < 20; i++) judge.add(ok(900), 0);
        assertFalse(judge.judge().resolved());
        assertFalse(judge.judge().passed(), "the estimate fails");
    }

    @Test
    void theOpenLoopLagCountsInTtft() {
        LevelJudge judge = judge("ttft_p50<=300ms", 1);
        judge.add(ok(100), 250_000_000L);
        assertEquals(350.0, judge.judge().results().get(0).estimate());
    }

    @Test
    void attainmentUsesWilsonAndCountsFailures() {
        LevelJudge judge = judge("ttft<=300ms@90%", 5);
        for (int i = 0; i < 8; i++) judge.add(ok(100), 0);
        judge.add(failed(FailureKind.HTTP_STATUS, 10), 0);
        judge.add(ok(400), 0);
        ObjectiveResult r = judge.judge().results().get(0);
        assertEquals(10, r.samples());
        assertEquals(0.8, r.estimate(), 1e-12);
        assertEquals(0.4902, r.low(), 1e-4); // 1 - the Wilson upper end of 2 misses in 10
        assertFalse(r.passed());
        assertFalse(r.resolved(), "[0.49, 0.94] straddles 0.9");
    }

    @Test
    void cancelledRequestsAreCensored() {
        LevelJudge judge = judge("ttft_p50<=300ms,error_rate<=10%", 1);
        judge.add(failed(FailureKind.CANCELLED, 100), 0); // not yet past the bound: unknown, left out
        judge.add(failed(FailureKind.CANCELLED, 500), 0); // outlived it: a miss
        LevelJudgement j = judge.judge();
        assertEquals(1, j.results().get(0).samples());
        assertEquals(1, j.results().get(0).misses());
        assertEquals(0, j.results().get(1).samples(), "our cancellations are no errors");
    }

    @Test
    void aCancelledRequestWithItsTtftWithinTheBoundMeetsATtftAttainment() {
        LevelJudge judge = judge("ttft<=250ms@90%,ttft_p90<=250ms", 1);
        for (int i = 0; i < 24; i++) judge.add(ok(100), 0);
        for (int i = 0; i < 4; i++) judge.add(cancelled(150, 105, 115), 0); // first token at 105 ms, then cut
        LevelJudgement j = judge.judge();
        ObjectiveResult attainment = j.results().get(0);
        assertEquals(28, attainment.samples());
        assertEquals(0, attainment.misses(), "a TTFT that arrived within the bound is met, cancelled or not");
        assertEquals(1.0, attainment.estimate());
        assertTrue(attainment.passed());
        ObjectiveResult percentile = j.results().get(1);
        assertEquals(28, percentile.samples());
        assertEquals(0, percentile.misses());
    }

    @Test
    void cancelledRequestsAreCensoredAlikeInAttainmentAndPercentile() {
        LevelJudge judge = judge("ttft<=250ms@90%,ttft_p90<=250ms,e2e<=400ms@90%,e2e_p90<=400ms", 1);
        judge.add(cancelled(150, 105), 0);  // TTFT known, within: a TTFT sample that holds; E2E unknown, left out
        judge.add(cancelled(300, 280), 0);  // TTFT known, past 250 ms: a TTFT miss; E2E still unknown
        judge.add(cancelled(500), 0);       // no token after 500 ms: outlived both bounds, a miss of each
        judge.add(cancelled(200), 0);       // no token yet at 200 ms, within both bounds: left out of both
        judge.add(cancelled(300), 0);       // no token at 300 ms: outlived TTFT (a miss), not yet E2E (left out)
        LevelJudgement j = judge.judge();
        int[][] samplesAndMisses = {{4, 3}, {4, 3}, {1, 1}, {1, 1}};
        for (int i = 0; i < samplesAndMisses.length; i++) {
            ObjectiveResult r = j.results().get(i);
            assertEquals(samplesAndMisses[i][0], r.samples(), r.toString());
            assertEquals(samplesAndMisses[i][1], r.misses(), r.toString());
        }
    }

    @Test
    void cancelledRequestsInTpotAndItl() {
        LevelJudge judge = judge("tpot<=20ms@90%,itl<=20ms@90%,itl_p90<=20ms,tpot_p90<=20ms", 1);
        judge.add(cancelled(150, 100, 110, 120), 0); // gaps 10, 10 so far: the rest unknown
        judge.add(cancelled(150, 100, 130), 0);      // a gap of 30 ms: already past the ITL bound
        LevelJudgement j = judge.judge();
        ObjectiveResult tpot = j.results().get(0);
        assertEquals(0, tpot.samples(), "TPOT needs the whole response: a cancelled request has none");
        ObjectiveResult itl = j.results().get(1);
        assertEquals(1, itl.samples(), "only the request that already missed counts");
        assertEquals(1, itl.misses());
        ObjectiveResult itlP90 = j.results().get(2);
        assertEquals(3, itlP90.samples(), "every gap measured counts");
        assertEquals(1, itlP90.misses());
        assertEquals(0, j.results().get(3).samples());
    }

    @Test
    void anEstimateNamesTheObjectivesStillUnresolved() {
        LevelJudge judge = judge("ttft_p90<=250ms,error_rate<=1%", 10);
        for (int i = 0; i < 80; i++) judge.add(ok(100), 0);
        LevelJudgement j = judge.judge();
        assertTrue(j.passed());
        assertFalse(j.resolved());
        assertTrue(j.results().get(0).resolved(), "p90 shows within 80 samples");
        assertEquals(0.0458, j.results().get(1).high(), 1e-4); // Wilson upper end of 0 in 80: 3.84 / 83.84
        assertEquals(java.util.List.of("error_rate<=1%"), j.unresolved());
        for (int i = 0; i < 300; i++) judge.add(ok(100), 0);
        assertFalse(judge.judge().resolved(), "380 error-free requests are not yet enough for 1 %");
        judge.add(ok(100), 0);
        assertTrue(judge.judge().resolved(), "381 are: 3.84 * 0.99 / 0.01 = 380.3");
        assertEquals(java.util.List.of(), judge.judge().unresolved());
    }

    @Test
    void errorRateAndItl() {
        LevelJudge judge = judge("error_rate<=1%,itl_p90<=20ms", 1);
        for (int i = 0; i < 50; i++) judge.add(ok(100), 0);
        for (int i = 0; i < 10; i++) judge.add(failed(FailureKind.HTTP_STATUS, 5), 0);
        LevelJudgement j = judge.judge();
        ObjectiveResult errors = j.results().get(0);
        assertEquals(10.0 / 60, errors.estimate(), 1e-12);
        assertTrue(errors.resolved() && !errors.passed());
        ObjectiveResult itl = j.results().get(1);
        assertEquals(110, itl.samples(), "two gaps per success, one infinite per failure");
        assertEquals("error_rate<=1%", j.binding().objective(), "the one furthest past its limit");
    }

    /**
     * A request of 8 content events 160 ms apart, sent at {@code startMs}, its gap after event {@code stalledGap} (or
     * none, -1) 400 ms long: a stall.
     */
    private static RequestMetrics streamed(long startMs, int stalledGap) {
        long[] events = new long[8];
        long at = 100_000_000L;
        for (int i = 0; i < events.length; i++) {
            events[i] = at;
            at += (i == stalledGap ? 400 : 160) * 1_000_000L;
        }
        long last = events[events.length - 1];
        return RequestMetrics.from(new RequestRecord(0, "r", "c", startMs * 1000, events[0], last,
                last + 1_000_000L, 8, events, "x".repeat(8), 10, 8, 8, 10, 8, "length", null), COUNTING);
    }

    /**
     * The QA (B-search-itl): an ITL p99 failure "resolved" with interval [183.9, inf] from 8 misses that were two
     * stalls hitting all 4 streams at once. Misses sharing one instant count as one event: the interval is over the
     * samples that leaves independent, and 8 misses in 2 instants no longer resolve the failure; 8 misses at 8
     * instants still do.
     */
    @Test
    void itlMissesThatShareAnInstantCountOnceInTheInterval() {
        LevelJudge clustered = judge("itl_p99<=180ms", 30);
        LevelJudge spread = judge("itl_p99<=180ms", 30);
        for (int r = 0; r < 30; r++) {
            int stream = r % 4;
            int round = r / 4;
            long start = round * 2000L + stream * 5L; // 4 streams in flight together, 5 ms apart
            // clustered: rounds 2 and 5 stall every stream at the same gap; spread: each stream in a round of its own
            clustered.add(streamed(start, round == 2 || round == 5 ? 3 : -1), 0);
            spread.add(streamed(start, stream == round % 2 ? 3 : -1), 0); // one stream per round
        }
        ObjectiveResult c = clustered.judge().results().get(0);
        assertEquals(210, c.samples());
        assertEquals(8, c.misses());
        assertEquals(2, c.missEvents(), c.toString());
        assertEquals("8 misses in 2 instants", c.missClustering());
        assertFalse(c.passed(), "its estimate is past the limit: " + c);
        assertFalse(c.resolved(), "two stalls do not show the failure with 95 % confidence: " + c);
        assertTrue(c.low() <= 180, c.toString());

        ObjectiveResult s = spread.judge().results().get(0);
        assertEquals(8, s.misses());
        assertEquals(8, s.missEvents(), s.toString());
        assertEquals("", s.missClustering());
        assertFalse(s.passed());
        assertTrue(s.resolved(), "8 stalls at 8 instants are 8 events: " + s);
        assertEquals(400.0, s.low(), 1e-9);
    }
}

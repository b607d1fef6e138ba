package io.llmperf4j.report.search;

import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.metrics.RequestMetrics;
import io.llmperf4j.report.metrics.SloObjectives;
import io.llmperf4j.report.metrics.TokenCounting;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A level judged from the intended and the actual send: whose delay failed it, the client's or the server's. */
class ClientLagJudgeTest {
    private static final TokenCounting COUNTING = new TokenCounting(0, true);
    private static final long MS = 1_000_000L;

    private static RequestMetrics ok(long ttftMs) {
        long ttft = ttftMs * MS;
        return RequestMetrics.from(new RequestRecord(0, "r", "c", 0, ttft, ttft + 10 * MS, ttft + 20 * MS,
                3, new long[]{ttft, ttft + 5 * MS, ttft + 10 * MS}, "abc", 10, 3, 3, 10, 3, "length", null),
                COUNTING);
    }

    private static ClientLagJudge judge() {
        return new ClientLagJudge(SloObjectives.parse("ttft_p90<=300ms").objectives(), 10);
    }

    /** The QA's repeat of rate 6.5: the server answered within 300 ms at p90; the pacer's lag pushed p90 past it. */
    @Test
    void aFailureTheSendLagAloneMakesIsTheClients() {
        ClientLagJudge judge = judge();
        for (int i = 0; i < 80; i++) judge.add(ok(100), 0);
        for (int i = 0; i < 8; i++) judge.add(ok(250), 0);
        // twelve sent 150 ms late: from the intended send their 250 ms answers take 400 ms
        for (int i = 0; i < 12; i++) judge.add(ok(250), 150 * MS);
        LevelJudgement intended = judge.judge();
        LevelJudgement actual = judge.fromActualSend();
        assertFalse(intended.passed(), intended.toString());
        assertEquals(400.0, intended.results().get(0).estimate(), 1e-9, intended.toString());
        assertTrue(actual.passed(), actual.toString());
        assertEquals(250.0, actual.results().get(0).estimate(), 1e-9, actual.toString());
        assertTrue(judge.clientBehind());
        assertEquals(100, judge.samples());
        assertEquals(150.0, judge.sendLagP99Millis(), 1e-9); // 12 of 100 at 150 ms: p99 among them
    }

    @Test
    void aServerThatAnswersLateFailsFromBothSends() {
        ClientLagJudge judge = judge();
        for (int i = 0; i < 80; i++) judge.add(ok(100), 0);
        for (int i = 0; i < 20; i++) judge.add(ok(400), 2 * MS);
        assertFalse(judge.judge().passed());
        assertFalse(judge.fromActualSend().passed());
        assertFalse(judge.clientBehind(), "the server's own delay, not the client's");
        assertEquals(2.0, judge.sendLagP99Millis(), 1e-9);
    }

    @Test
    void aPassingLevelIsNeverTheClientsFailure() {
        ClientLagJudge judge = judge();
        for (int i = 0; i < 50; i++) judge.add(ok(100), i == 0 ? 500 * MS : -3); // a negative lag counts as 0
        assertTrue(judge.judge().passed());
        assertFalse(judge.clientBehind());
        assertTrue(Double.isNaN(judge().sendLagP99Millis()), "no request, no lag");
    }

    /** A session's later turns count from their actual send in both verdicts, and not among the send lags. */
    @Test
    void aTurnDueAtATimeTheClientSetIsJudgedFromItsActualSend() {
        ClientLagJudge judge = judge();
        for (int i = 0; i < 10; i++) judge.add(ok(100), 2 * MS);
        for (int i = 0; i < 10; i++) judge.addFromActualSend(ok(280));
        assertEquals(20, judge.samples());
        assertEquals(280.0, judge.judge().results().get(0).estimate(), 1e-9, "280 ms, not 280 plus a lag");
        assertTrue(judge.judge().passed());
        assertEquals(judge.judge().results().get(0).estimate(), judge.fromActualSend().results().get(0).estimate());
        assertEquals(2.0, judge.sendLagP99Millis(), 1e-9, "the arrivals' lags alone");
    }
}

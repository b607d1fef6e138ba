package io.llmperf4j.report.compare;

import static io.llmperf4j.report.testutil.Records.MS;
import static io.llmperf4j.report.testutil.Records.START_EPOCH_MICROS;
import static io.llmperf4j.report.testutil.Records.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.report.metrics.RequestMetrics;
import io.llmperf4j.report.metrics.TokenCounting;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An open loop's send lag in compare: rows of send lag and of TTFT and E2E from the intended send when the records
 * carry lags, a line when the lags differ materially, and none of it for closed loops.
 */
class CompareSendLagTest {

    /** Ten requests with TTFT 50 ms and E2E 250 ms; the i-th sent {@code lagStepMs × i} late (none when null). */
    private static RunSamples run(String label, Long lagStepMs) {
        List<RequestMetrics> requests = new ArrayList<>();
        Map<String, Long> lags = new HashMap<>();
        for (int i = 0; i < 10; i++) {
            RequestMetrics r = RequestMetrics.from(request(i).start(START_EPOCH_MICROS + i * 50_000L)
                    .evenEvents(50 * MS, 10 * MS, 21).e2e(250 * MS).usage(100, 21).build(), TokenCounting.DEFAULT);
            requests.add(r);
            if (lagStepMs != null) lags.put(r.clientRequestId(), lagStepMs * i * MS);
        }
        return RunSamples.of(label, requests, lags);
    }

    @Test
    void intendedSendRowsAddTheLagToTtftAndE2e() {
        RunComparison c = RunComparison.compare(run("a", 1L), run("b", 100L));
        // lags 0..900 ms by 100: p90 = 810 (numpy linear), TTFT from the intended send 50 ms more
        MetricDelta lag = c.delta(CompareMetric.SEND_LAG, CompareStat.P90).orElseThrow();
        assertEquals(8.1, lag.baseline(), 1e-9);
        assertEquals(810.0, lag.candidate(), 1e-9);
        assertEquals(860.0, c.delta(CompareMetric.TTFT_FROM_INTENDED, CompareStat.P90).orElseThrow().candidate(), 1e-9);
        assertEquals(1060.0, c.delta(CompareMetric.E2E_FROM_INTENDED, CompareStat.P90).orElseThrow().candidate(), 1e-9);
        // TTFT from the actual send did not move: that is what hid the overload
        assertEquals(0.0, c.delta(CompareMetric.TTFT, CompareStat.P90).orElseThrow().absoluteDelta(), 1e-9);
        String line = c.sendLagDifference().orElseThrow();
        assertTrue(line.startsWith("send lag differs: p90 8.1 ms (baseline) vs 810.0 ms (candidate): the candidate's"),
                line);
        assertTrue(line.contains("TTFT p90 went 58.1 -> 860.0 ms (+1380.2 %)"), line);
        String table = ComparisonConsoleReport.render(c, c.evaluate(FailIfRule.parseAll(
                "ttft_p90>+10%,ttft_from_intended_p90>+10%")));
        assertTrue(table.contains(line), table);
        assertTrue(table.contains("FAIL ttft_from_intended_p90>+10%"), table);
        // a TTFT rule on scheduled runs judges from the intended send, and says what it was from the actual one
        assertTrue(table.contains("FAIL ttft_p90>+10%: TTFT (from intended send) p90 changed by +1380.2% (58.100 -> "
                + "860.000 ms"), table);
        assertTrue(table.contains("judged from the intended send, as goodput and the SLO verdict judge a scheduled "
                + "run: from the actual send (the TTFT row) it changed by +0.0%"), table);
    }

    @Test
    void alikeLagsGiveNoLine() {
        // p90 81 vs 89.1 ms: 8.1 ms, within 10 % of the baseline's TTFT p90 from the intended send (131 ms)
        RunComparison c = RunComparison.compare(run("a", 10L), run("b", 11L));
        assertTrue(c.sendLagDifference().isEmpty());
    }

    @Test
    void closedLoopsHaveNoSuchRowsAndRulesOnThemAreNotEvaluated() {
        RunComparison c = RunComparison.compare(run("a", null), run("b", null));
        assertFalse(c.delta(CompareMetric.SEND_LAG, CompareStat.P90).isPresent());
        assertFalse(ComparisonConsoleReport.render(c).contains("Send lag"));
        RuleResult r = c.evaluate(FailIfRule.parseAll("ttft_from_intended_p90>+10%")).get(0);
        assertEquals(RuleResult.Verdict.NOT_EVALUATED, r.verdict());
        assertTrue(r.message().contains("neither run recorded send lags") && r.message().endsWith("use ttft_p90"),
                r.message());
        // and TTFT rules judge from the actual send, as always
        RuleResult ttft = c.evaluate(FailIfRule.parseAll("ttft_p90>+10%")).get(0);
        assertTrue(ttft.message().startsWith("pass ttft_p90>+10%: TTFT p90 changed by +0.0%")
                && !ttft.message().contains("intended"), ttft.message());
    }
}

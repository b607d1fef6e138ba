package io.llmperf4j.report.compare;

import static io.llmperf4j.report.testutil.Records.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ComparisonConsoleReportTest {

    @Test
    void tableAndRules() {
        RunComparison c = RunComparison.compare(RunComparisonTest.synthetic("vllm-0.5", 1, 500, 0),
                RunComparisonTest.synthetic("vllm-0.6", 2, 500, 50 * MS));
        String text = ComparisonConsoleReport.render(c, c.evaluate(FailIfRule.parseAll("ttft_p90>+10%,error_rate>0.01")));
        String[] lines = text.split("\n");
        assertTrue(lines[0].startsWith("baseline:  vllm-0.5 (500 of 500 requests ok, window "), lines[0]);
        assertTrue(lines[1].startsWith("candidate: vllm-0.6 (500 of 500 requests ok, window "), lines[1]);
        assertEquals("bootstrap: 2000 resamples, 95% CI, seed 11111", lines[2]);
        assertTrue(lines[3].startsWith("metric "), lines[3]);
        assertTrue(lines[4].startsWith("TTFT                        p50 "), lines[4]);
        assertTrue(lines[4].matches(".*\\] \\* +ms"), lines[4]);
        // the synthetic runs' usage counts one token per event (100 events, 100 tokens): the per-token rows repeat ITL
        int legend = java.util.Arrays.asList(lines).indexOf("* the 95 % CI of the delta excludes 0. The CI comes from "
                + "resampling requests within each run; run-to-run variation is not in it: repeat runs "
                + "(--iterations/--forks) to judge a change");
        assertEquals("ITL (per token) rows left out: every content event carried one token, so they repeat ITL (per "
                + "event) (itl_per_token rules still apply)", lines[legend - 1], text);
        assertEquals(4 + 5 * 4 + 3 + 1, legend, text);
        assertEquals("Rules:", lines[lines.length - 3]);
        assertTrue(lines[lines.length - 2].startsWith("  FAIL ttft_p90>+10%: "), lines[lines.length - 2]);
        assertTrue(lines[lines.length - 1].startsWith("  pass error_rate>0.01: Error rate changed by +0.000 fraction"),
                lines[lines.length - 1]);
    }

    /** A rule not evaluated fails the gate: the Rules section says so in its last line, and what to do. */
    @Test
    void rulesNotEvaluatedAreSaidToFailTheGate() {
        RunComparison c = RunComparison.compare(RunComparisonTest.synthetic("a", 1, 100, 0),
                RunComparisonTest.synthetic("b", 2, 100, 0));
        String text = ComparisonConsoleReport.render(c,
                c.evaluate(FailIfRule.parseAll("error_rate>+10%,ttft_p90>+50%")));
        String[] lines = text.split("\n");
        assertEquals("  NOT EVALUATED error_rate>+10%: the baseline Error rate is 0, so a relative change is "
                + "undefined; use an absolute limit: error_rate>0.1 (a rise of 10 percentage points)",
                lines[lines.length - 3]);
        assertEquals("1 of 2 verdicts NOT EVALUATED: a gate never passes on a rule it could not evaluate, so these "
                + "fail it (exit 3) as a crossed rule does; drop or replace those rules (each line says why and what "
                + "there is instead)", lines[lines.length - 1]);
        String allEvaluated = ComparisonConsoleReport.render(c, c.evaluate(FailIfRule.parseAll("ttft_p90>+50%")));
        String[] evaluated = allEvaluated.split("\n");
        assertTrue(evaluated[evaluated.length - 1].startsWith("  pass ttft_p90>+50%"), allEvaluated);
        assertFalse(allEvaluated.contains("NOT EVALUATED"), allEvaluated);
    }

    /** {@code n} requests alike: TTFT {@code ttftMs}, 11 events of one token each, 10 ms apart. */
    private static RunSamples constant(String label, int n, long ttftMs) {
        List<io.llmperf4j.report.metrics.RequestMetrics> requests = new java.util.ArrayList<>();
        int[] tokens = new int[11];
        java.util.Arrays.fill(tokens, 1);
        for (int i = 0; i < n; i++) {
            requests.add(io.llmperf4j.report.metrics.RequestMetrics.from(io.llmperf4j.report.testutil.Records.request(i)
                    .start(io.llmperf4j.report.testutil.Records.START_EPOCH_MICROS + i * 100_000L)
                    .evenEvents(ttftMs * MS, 10 * MS, 11).eventTokens(tokens).e2e(ttftMs * MS + 100 * MS)
                    .usage(100, 11).build(), io.llmperf4j.report.metrics.TokenCounting.DEFAULT));
        }
        return RunSamples.of(label, requests);
    }

    /** Zero variance on both sides: the interval is the point, and a point claims no significance. */
    @Test
    void anIntervalWithoutWidthSaysNoVariationMeasuredInsteadOfAStar() {
        RunComparison c = RunComparison.compare(constant("a", 20, 50), constant("b", 20, 51));
        MetricDelta p50 = c.delta(CompareMetric.TTFT, CompareStat.P50).orElseThrow();
        assertEquals(p50.absoluteCi().lower(), p50.absoluteCi().upper());
        assertFalse(p50.significant());
        assertTrue(p50.noVariationMeasured());
        String text = ComparisonConsoleReport.render(c, c.evaluate(FailIfRule.parseAll("ttft_p50>+1%")));
        String row = text.lines().filter(l -> l.startsWith("TTFT                        p50")).findFirst().orElseThrow();
        assertTrue(row.contains("[+2.0%, +2.0%] no variation measured"), row);
        assertFalse(row.contains("*"), row);
        assertTrue(text.contains("FAIL ttft_p50>+1%: TTFT p50 changed by +2.0%") && text.contains(
                "no variation measured (the interval has no width), so no noise estimate"), text);
    }

    /** One token per event: the per-token ITL rows repeat the per-event ones and are left out, rules still apply. */
    @Test
    void perTokenItlRowsThatRepeatPerEventRowsAreLeftOut() {
        RunComparison c = RunComparison.compare(RunComparisonTest.synthetic("a", 1, 50, 0),
                constant("b", 50, 200));
        assertTrue(c.itlPerTokenRepeatsItl() == (c.delta(CompareMetric.ITL_PER_TOKEN, CompareStat.P50).orElseThrow()
                .baseline() == c.delta(CompareMetric.ITL, CompareStat.P50).orElseThrow().baseline()));
        RunComparison same = RunComparison.compare(constant("a", 50, 100), constant("b", 50, 200));
        assertTrue(same.itlPerTokenRepeatsItl());
        String text = ComparisonConsoleReport.render(same, same.evaluate(FailIfRule.parseAll("itl_per_token_p90>+10%")));
        assertFalse(text.contains("ITL (per token)             p50"), text);
        assertTrue(text.contains("ITL (per token) rows left out: every content event carried one token"), text);
        assertTrue(text.contains("pass itl_per_token_p90>+10%"), text);
    }

    /**
     * The footnote counts the rows with an interval and says that separate runs mark many more than the level's 5 %
     * (run-to-run drift is not in the interval): no count of chance rows to anchor on (it said "(1.0 rows)" where 15
     * A/A pairs of an unchanged server marked 2-12 of 20 rows each).
     */
    @Test
    void theFootnoteSaysSeparateRunsMarkManyMoreThanTheLevel() {
        RunComparison c = RunComparison.compare(RunComparisonTest.synthetic("a", 1, 200, 0),
                RunComparisonTest.synthetic("b", 2, 200, 0));
        long withInterval = c.deltas().stream().filter(d -> d.absoluteCi() != null && d.absoluteCi().hasWidth()
                && !(c.itlPerTokenRepeatsItl() && d.metric() == CompareMetric.ITL_PER_TOKEN)).count();
        String text = ComparisonConsoleReport.render(c);
        assertTrue(text.contains(String.format(java.util.Locale.ROOT, "  each row is its own interval, not corrected "
                + "for the %d rows with one. Within one run's requests about 5 %% of rows would be marked by chance "
                + "alone, but separate runs of an unchanged server differ by more than these intervals hold (run-to-run "
                + "drift is not in them), so between two runs many rows can be marked, several in every A/A pair; a * "
                + "says these two sets of requests differ, not that the server changed", withInterval)), text);
        assertFalse(text.contains(" rows) are marked"), text);
        assertTrue(text.contains("  throughput and error-rate rows have no interval (one value per run): runs of an "
                + "unchanged server move them by a few percent"), text);
        assertTrue(text.contains("none (one per run)"), text);
    }
}

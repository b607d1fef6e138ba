package io.llmperf4j.report.compare;

import static io.llmperf4j.report.testutil.Records.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class FailIfRuleTest {

    @Test
    void parsesRelativeAndAbsoluteRules() {
        FailIfRule ttft = FailIfRule.parse("ttft_p90>+10%");
        assertEquals(CompareMetric.TTFT, ttft.metric());
        assertEquals(CompareStat.P90, ttft.stat());
        assertEquals(FailIfRule.Operator.GREATER, ttft.operator());
        assertEquals(10.0, ttft.threshold());
        assertTrue(ttft.relative());

        FailIfRule e2e = FailIfRule.parse(" E2E_P99 >= +0.5s ");
        assertEquals(CompareMetric.E2E, e2e.metric());
        assertEquals(FailIfRule.Operator.GREATER_OR_EQUAL, e2e.operator());
        assertEquals(500.0, e2e.threshold());
        assertFalse(e2e.relative());
        assertEquals("E2E_P99 >= +0.5s", e2e.text());
        assertEquals("e2e_p99", e2e.ruleKey());

        FailIfRule throughput = FailIfRule.parse("output_throughput<-5%");
        assertEquals(CompareStat.VALUE, throughput.stat());
        assertEquals(-5.0, throughput.threshold());
        assertEquals(FailIfRule.Operator.LESS, throughput.operator());

        assertEquals(0.25, FailIfRule.parse("tpot_mean>250us").threshold());
        assertEquals(0.01, FailIfRule.parse("error_rate>0.01").threshold());
        assertEquals(CompareMetric.REQUEST_TPS, FailIfRule.parse("request_tps_p50<=-3.5%").metric());
        assertEquals(List.of("ttft_p90", "output_throughput"),
                FailIfRule.parseAll("ttft_p90>+10%, output_throughput<-5%,").stream().map(FailIfRule::ruleKey).toList());
    }

    @Test
    void syntaxErrorsSayWhatIsWrongAndWhatIsExpected() {
        assertError("", "fail-if rule is empty; expected <metric>[_<stat>]<op><change>, e.g. ttft_p90>+10%, "
                + "e2e_p99>+500ms or output_throughput<-5%");
        assertError("ttft_p90=10%", "fail-if rule 'ttft_p90=10%': no comparison (>, >=, < or <=); expected "
                + "<metric>[_<stat>]<op><change>, e.g. ttft_p90>+10%, e2e_p99>+500ms or output_throughput<-5%");
        assertError(">10%", "fail-if rule '>10%': no metric before '>'; expected one of ttft, tpot, itl, "
                + "itl_per_token, e2e, send_lag, ttft_from_intended, e2e_from_intended, request_tps (with _p50, _p90, _p99 or _mean), or output_throughput, "
                + "request_throughput, error_rate");
        assertError("ttft_p90>", "fail-if rule 'ttft_p90>': no change after '>'; expected a signed number with % "
                + "(relative) or a unit (absolute), e.g. +10%, +50ms, -5%");
        assertError("latency_p90>+10%", "fail-if rule 'latency_p90>+10%': unknown metric 'latency_p90'; use one of "
                + "ttft, tpot, itl, itl_per_token, e2e, send_lag, ttft_from_intended, e2e_from_intended, request_tps "
                + "(with _p50, _p90, _p99 or _mean), or "
                + "output_throughput, request_throughput, error_rate");
        assertEquals(CompareMetric.ITL_PER_TOKEN, FailIfRule.parse("itl_per_token_p99 > +2ms").metric());
        assertEquals(CompareMetric.ITL, FailIfRule.parse("ITL_p90>+10%").metric());
        assertError("itl_per_token>+10%", "fail-if rule 'itl_per_token>+10%': itl_per_token needs a statistic: "
                + "itl_per_token_p50, itl_per_token_p90, itl_per_token_p99, itl_per_token_mean");
        assertError("ttft>+10%", "fail-if rule 'ttft>+10%': ttft needs a statistic: ttft_p50, ttft_p90, ttft_p99, "
                + "ttft_mean");
        assertError("ttft_p95>+10%", "fail-if rule 'ttft_p95>+10%': unknown statistic 'p95' for ttft; use p50, p90, "
                + "p99, mean");
        assertError("output_throughput_p50<-5%", "fail-if rule 'output_throughput_p50<-5%': output_throughput is one "
                + "value per run and takes no statistic; drop '_p50'");
        assertError("ttft_p90>ten%", "fail-if rule 'ttft_p90>ten%': 'ten%' is not a change; expected a signed number "
                + "with % (relative) or a unit (absolute), e.g. +10%, +50ms, -5%");
        assertError("output_throughput<-5ms", "fail-if rule 'output_throughput<-5ms': unit 'ms' does not apply to "
                + "output_throughput (tok/s); use % or a plain number in tok/s");
    }

    /** An empty variable in a CI script ({@code --fail-if "$RULES"}) must not make a gate that always passes. */
    @Test
    void aListWithoutAnyRuleIsRefused() {
        for (String empty : List.of("", ",", " , ,")) {
            FailIfSyntaxException e = assertThrows(FailIfSyntaxException.class, () -> FailIfRule.parseAll(empty));
            assertEquals("no rule in '" + empty + "': a gate without rules passes whatever the runs did (an empty "
                    + "variable in a script?); give at least one, e.g. ttft_p90>+10%, e2e_p99>+500ms or "
                    + "output_throughput<-5%, or leave the option out", e.getMessage());
        }
    }

    @Test
    void evaluatesToPassFailWithMessages() {
        RunComparison c = RunComparison.compare(RunComparisonTest.synthetic("a", 1, 1_000, 0),
                RunComparisonTest.synthetic("b", 2, 1_000, 50 * MS));
        MetricDelta p90 = c.delta(CompareMetric.TTFT, CompareStat.P90).orElseThrow();

        RuleResult fail = FailIfRule.parse("ttft_p90>+10%").evaluate(c);
        assertEquals(RuleResult.Verdict.FAIL, fail.verdict());
        assertTrue(fail.failed());
        assertEquals(p90.relativeDeltaPercent(), fail.observed());
        assertTrue(fail.message().matches("FAIL ttft_p90>\\+10%: TTFT p90 changed by \\+\\d+\\.\\d% "
                + "\\(\\d+\\.\\d{3} -> \\d+\\.\\d{3} ms, 95% CI \\+\\d+\\.\\d% to \\+\\d+\\.\\d%\\); fails when > "
                + "\\+10\\.0%(; the CI reaches the limit, so this verdict may be noise)?"), fail.message());

        RuleResult pass = FailIfRule.parse("ttft_p90>+100ms").evaluate(c);
        assertEquals(RuleResult.Verdict.PASS, pass.verdict());
        assertFalse(pass.failed());
        assertTrue(pass.message().startsWith("pass ttft_p90>+100ms: TTFT p90 changed by +"), pass.message());
        assertTrue(pass.message().endsWith(" ms); fails when > +100.000 ms"), pass.message());

        // the shift is exactly what the rule allows: the CI reaches the limit
        RuleResult edge = FailIfRule.parse("ttft_mean>+" + String.format(java.util.Locale.ROOT, "%.6f",
                c.delta(CompareMetric.TTFT, CompareStat.MEAN).orElseThrow().absoluteDelta() + 1) + "ms").evaluate(c);
        assertEquals(RuleResult.Verdict.PASS, edge.verdict());
        assertTrue(edge.message().endsWith("; the CI reaches the limit, so this verdict may be noise"),
                edge.message());

        RuleResult throughput = FailIfRule.parse("output_throughput<-5%").evaluate(c);
        assertEquals(RuleResult.Verdict.PASS, throughput.verdict());
        assertTrue(throughput.message().startsWith("pass output_throughput<-5%: Output throughput changed by "),
                throughput.message());
        assertFalse(throughput.message().contains("CI"));

        assertEquals(List.of(RuleResult.Verdict.FAIL, RuleResult.Verdict.PASS),
                c.evaluate(List.of(FailIfRule.parse("e2e_p50>+4%"), FailIfRule.parse("error_rate>0.01")))
                        .stream().map(RuleResult::verdict).toList());
    }

    @Test
    void undefinedChangesAreNotEvaluatedAndCountAsFailures() {
        RunSamples empty = RunSamples.of("empty", List.of());
        RunComparison c = RunComparison.compare(RunComparisonTest.synthetic("a", 1, 100, 0), empty);
        RuleResult missing = FailIfRule.parse("ttft_p90>+10%").evaluate(c);
        assertEquals(RuleResult.Verdict.NOT_EVALUATED, missing.verdict());
        assertTrue(missing.failed());
        assertEquals("NOT EVALUATED ttft_p90>+10%: the candidate has no TTFT p90 (no successful request with that "
                + "value)", missing.message());

        // error rate 0 -> 0: a relative change is undefined, an absolute one is fine
        RunComparison clean = RunComparison.compare(RunComparisonTest.synthetic("a", 1, 100, 0),
                RunComparisonTest.synthetic("b", 2, 100, 0));
        RuleResult relative = FailIfRule.parse("error_rate>+10%").evaluate(clean);
        assertEquals(RuleResult.Verdict.NOT_EVALUATED, relative.verdict());
        assertEquals("NOT EVALUATED error_rate>+10%: the baseline Error rate is 0, so a relative change is "
                + "undefined; use an absolute limit: error_rate>0.1 (a rise of 10 percentage points)",
                relative.message());
        assertTrue(FailIfRule.parse("error_rate>1%").evaluate(clean).message()
                .endsWith("use an absolute limit: error_rate>0.01 (a rise of 1 percentage point)"));
        assertEquals(RuleResult.Verdict.PASS, FailIfRule.parse("error_rate>0.01").evaluate(clean).verdict());
    }

    private static void assertError(String rule, String message) {
        FailIfSyntaxException e = assertThrows(FailIfSyntaxException.class, () -> FailIfRule.parse(rule));
        assertEquals(message, e.getMessage());
    }
}

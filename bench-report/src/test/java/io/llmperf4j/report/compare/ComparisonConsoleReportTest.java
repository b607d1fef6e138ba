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
        assertEquals("* the 95 % CI of the delta excludes 0. The CI comes from resampling requests within each run; "
                + "run-to-run variation is not in it: repeat runs (--iterations/--forks) to judge a change",
                lines[4 + 6 * 4 + 3]);
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
                + "undefined; use an absolute limit", lines[lines.length - 3]);
        assertEquals("1 of 2 verdicts NOT EVALUATED: a gate never passes on a rule it could not evaluate, so these "
                + "fail it (exit 3) as a crossed rule does; drop or replace those rules (each line says why and what "
                + "there is instead)", lines[lines.length - 1]);
        String allEvaluated = ComparisonConsoleReport.render(c, c.evaluate(FailIfRule.parseAll("ttft_p90>+50%")));
        String[] evaluated = allEvaluated.split("\n");
        assertTrue(evaluated[evaluated.length - 1].startsWith("  pass ttft_p90>+50%"), allEvaluated);
        assertFalse(allEvaluated.contains("NOT EVALUATED"), allEvaluated);
    }
}

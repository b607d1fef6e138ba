package io.llmperf4j.report.compare;

import java.util.Objects;

/**
 * The outcome of one {@link FailIfRule}.
 *
 * @param rule     the rule
 * @param verdict  pass, fail, or not evaluated (the change is undefined: no sample on a side, or a relative change
 *                 from a baseline of 0)
 * @param observed the change the rule tested (percent for relative rules, the metric's unit otherwise); NaN when
 *                 not evaluated
 * @param message  one line: the verdict, the rule, the values, the CI and the limit
 */
public record RuleResult(FailIfRule rule, Verdict verdict, double observed, String message) {

    /** A rule's verdict. */
    public enum Verdict { PASS, FAIL, NOT_EVALUATED }

    public RuleResult {
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(verdict, "verdict");
        Objects.requireNonNull(message, "message");
    }

    /** True unless the rule passed: a gate must not pass on a rule it could not evaluate. */
    public boolean failed() {
        return verdict != Verdict.PASS;
    }
}

package io.llmperf4j.report.compare;

/** A fail-if rule that does not parse; the message quotes the rule and says what was expected. */
public final class FailIfSyntaxException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String rule;

    FailIfSyntaxException(String rule, String message) {
        super(message);
        this.rule = rule;
    }

    /** The rule as given. */
    public String rule() {
        return rule;
    }
}

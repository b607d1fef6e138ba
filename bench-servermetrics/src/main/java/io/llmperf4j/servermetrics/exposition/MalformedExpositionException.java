package io.llmperf4j.servermetrics.exposition;

import io.llmperf4j.model.PrintableText;

/**
 * A body that is not valid exposition text; the message names the line and what is wrong with it, and quotes the
 * line ({@link PrintableText}: control characters escaped, at most {@value #MAX_QUOTED_CHARS} characters), since it
 * is printed on the console as the server sent it.
 */
public final class MalformedExpositionException extends RuntimeException {

    private static final int MAX_QUOTED_CHARS = 120;

    private final int lineNumber;
    private final String reason;

    /** {@code reason} may quote the server's text too (a type's word, an escape's character): it is escaped. */
    MalformedExpositionException(int lineNumber, String reason, String line) {
        super("line " + lineNumber + ": " + PrintableText.of(reason) + (line == null ? ""
                : ": " + PrintableText.quote(line, MAX_QUOTED_CHARS)));
        this.lineNumber = lineNumber;
        this.reason = PrintableText.of(reason);
    }

    /** The 1-based line number of the offending line. */
    public int lineNumber() {
        return lineNumber;
    }

    /** What is wrong, without the line number and the quoted line. */
    public String reason() {
        return reason;
    }
}

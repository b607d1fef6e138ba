package io.llmperf4j.servermetrics.exposition;

/** A body that is not valid exposition text; the message names the line and what is wrong with it. */
public final class MalformedExpositionException extends RuntimeException {

    private static final int MAX_QUOTED_CHARS = 120;

    private final int lineNumber;
    private final String reason;

    MalformedExpositionException(int lineNumber, String reason, String line) {
        super("line " + lineNumber + ": " + reason + (line == null ? "" : ": " + quote(line)));
        this.lineNumber = lineNumber;
        this.reason = reason;
    }

    /** The 1-based line number of the offending line. */
    public int lineNumber() {
        return lineNumber;
    }

    /** What is wrong, without the line number and the quoted line. */
    public String reason() {
        return reason;
    }

    private static String quote(String line) {
        return line.length() <= MAX_QUOTED_CHARS ? line : line.substring(0, MAX_QUOTED_CHARS) + "…";
    }
}

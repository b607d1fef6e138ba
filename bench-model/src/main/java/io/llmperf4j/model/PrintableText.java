package io.llmperf4j.model;

/**
 * Text a server sent, made safe to quote on a console line or in a notice: control characters escaped (so a NUL
 * does not make {@code grep} call the run's log binary, and an ANSI escape does not recolour or move the terminal),
 * long text cut with an ellipsis. Tab, CR and LF read {@code \t}, {@code \r}, {@code \n}; other C0 controls, DEL and
 * the C1 controls {@code \xNN}; the Unicode line and paragraph separators and the bidirectional overrides and
 * isolates (which reorder what follows them) {@code \}{@code uNNNN}. Everything else is kept as it is.
 */
public final class PrintableText {

    private static final String ELLIPSIS = "…";

    private PrintableText() {
    }

    /** {@code text} with its control characters escaped, whole; "null" for null. */
    public static String of(String text) {
        return quote(text, Integer.MAX_VALUE);
    }

    /**
     * {@code text} with its control characters escaped, at most {@code maxChars} characters of the escaped text,
     * then "…" when some was cut; an escape is never cut in two.
     */
    public static String quote(String text, int maxChars) {
        if (text == null) return "null";
        StringBuilder out = new StringBuilder(Math.min(text.length(), maxChars) + 8);
        for (int i = 0; i < text.length(); i++) {
            String piece = escape(text.charAt(i));
            if (out.length() + (piece == null ? 1 : piece.length()) > maxChars) {
                return out.append(ELLIPSIS).toString();
            }
            if (piece == null) out.append(text.charAt(i));
            else out.append(piece);
        }
        return out.toString();
    }

    /** The escape of {@code c}, or null when it prints as it is. */
    public static String escape(char c) {
        switch (c) {
            case '\t':
                return "\\t";
            case '\r':
                return "\\r";
            case '\n':
                return "\\n";
            default:
                break;
        }
        if (c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f)) return String.format("\\x%02x", (int) c);
        if (c == '\u2028' || c == '\u2029' || (c >= '\u202a' && c <= '\u202e') || (c >= '\u2066' && c <= '\u2069')) {
            return String.format("\\u%04x", (int) c);
        }
        return null;
    }
}

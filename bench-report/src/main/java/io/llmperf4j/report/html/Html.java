package io.llmperf4j.report.html;

import java.util.Locale;

/**
 * Escaping and number formatting for the HTML report. Output is both HTML5 and well-formed XML: only the five XML
 * escapes and numeric character references are used, never named HTML entities such as {@code &nbsp;}.
 */
final class Html {

    /** The longest example error message shown; longer ones are cut with an ellipsis. */
    static final int MAX_MESSAGE_CHARS = 400;

    private Html() {
    }

    /**
     * {@code text} safe for element content and for double- or single-quoted attribute values: {@code & < > " '}
     * escaped; control characters that neither HTML nor XML 1.0 allow (all below U+0020 but tab, LF and CR, plus
     * U+007F–U+009F, U+FFFE, U+FFFF) and lone surrogates shown as a visible {@code \\uXXXX}; null as the empty
     * string.
     */
    static String esc(String text) {
        if (text == null) return "";
        StringBuilder out = null;
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            String replacement = switch (c) {
                case '&' -> "&amp;";
                case '<' -> "&lt;";
                case '>' -> "&gt;";
                case '"' -> "&quot;";
                case '\'' -> "&#39;";
                default -> null;
            };
            if (replacement == null) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                    if (out != null) out.append(c).append(text.charAt(i + 1));
                    i++;
                    continue;
                }
                if (!allowed(c)) replacement = String.format(Locale.ROOT, "\\u%04x", (int) c);
            }
            if (replacement != null) {
                if (out == null) out = new StringBuilder(n + 16).append(text, 0, i);
                out.append(replacement);
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? text : out.toString();
    }

    private static boolean allowed(char c) {
        if (c == '\t' || c == '\n' || c == '\r') return true;
        if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return false;
        if (Character.isSurrogate(c)) return false; // a lone one; pairs are handled by the caller
        return c != 0xfffe && c != 0xffff;
    }

    /** {@code text} cut to {@code max} characters (not splitting a surrogate pair), with "…" when cut. */
    static String truncate(String text, int max) {
        if (text == null || text.length() <= max) return text;
        int end = max;
        if (Character.isHighSurrogate(text.charAt(end - 1))) end--;
        return text.substring(0, end) + "\u2026";
    }

    /** Fixed decimals, or "-" for NaN and infinities. */
    static String fixed(double value, int decimals) {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%." + decimals + "f", value) : "-";
    }

    /** Like {@link #fixed(double, int)} for a nullable JSON number. */
    static String fixed(Double value, int decimals) {
        return value == null ? "-" : fixed(value.doubleValue(), decimals);
    }

    /** Three significant digits or more for a tile: 4020 → "4020", 248.9 → "249", 27.26 → "27.3", 3.14159 → "3.14". */
    static String adaptive(Double value) {
        if (value == null || !Double.isFinite(value)) return "-";
        double a = Math.abs(value);
        return fixed(value.doubleValue(), a >= 100 ? 0 : a >= 10 ? 1 : 2);
    }

    /** A fraction as a percentage with one decimal, or "-". */
    static String percent(Double fraction) {
        return fraction == null || !Double.isFinite(fraction) ? "-"
                : String.format(Locale.ROOT, "%.1f %%", 100 * fraction);
    }

    /** A coordinate for SVG: at most 2 decimals, no exponent, no trailing zeros. */
    static String coord(double value) {
        if (!Double.isFinite(value)) throw new IllegalArgumentException("coordinate (" + value + ") must be finite");
        long hundredths = Math.round(value * 100);
        if (hundredths % 100 == 0) return Long.toString(hundredths / 100);
        if (hundredths >= EXACT_HUNDREDTHS || hundredths <= -EXACT_HUNDREDTHS) { // Long.MIN_VALUE has no abs
            String s = String.format(Locale.ROOT, "%.2f", hundredths / 100.0);
            return s.endsWith("0") ? s.substring(0, s.length() - 1) : s;
        }
        // the digits String.format("%.2f") gives for these, from the integer (a chart has thousands of coordinates)
        long abs = Math.abs(hundredths);
        long fraction = abs % 100;
        StringBuilder out = new StringBuilder(24);
        if (hundredths < 0) out.append('-');
        out.append(abs / 100).append('.');
        if (fraction % 10 == 0) {
            out.append(fraction / 10);
        } else {
            if (fraction < 10) out.append('0');
            out.append(fraction);
        }
        return out.toString();
    }

    /** Below this many hundredths, hundredths / 100.0 prints as exactly those digits at 2 decimals. */
    private static final long EXACT_HUNDREDTHS = 1L << 40;

    /** A data value for a {@code data-*} attribute: shortest round-trip text, "NaN" for NaN. */
    static String data(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e15) return Long.toString((long) value);
        return Double.toString(value);
    }
}

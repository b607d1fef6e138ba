package io.llmperf4j.report.python;

import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Map;
import java.util.function.Function;

/**
 * Writes JSON byte for byte as Python's {@code json.dump(obj, f, indent=4)} does with its defaults
 * ({@code ensure_ascii=True}, {@code allow_nan=True}), which is how llmperf writes its result files.
 *
 * <ul>
 *   <li>Layout: every member on its own line, indented by 4 spaces per level; {@code "key": value};
 *       members separated by {@code ",\n"}; empty containers as {@code {}} and {@code []}; no trailing
 *       newline.</li>
 *   <li>Strings: {@code "} {@code \} and {@code \b \f \n \r \t} escaped by name, every other character outside
 *       printable ASCII (0x20..0x7E) as a lowercase {@code \}{@code uXXXX}; characters above U+FFFF become their
 *       surrogate pair, which a Java string already holds.</li>
 *   <li>Floats ({@link Double}, {@link Float}, {@link BigDecimal}): {@link PythonRepr#ofFloat}, with
 *       {@code NaN}, {@code Infinity}, {@code -Infinity} bare. Integers ({@link Integer}, {@link Long},
 *       {@link Short}, {@link Byte}, {@link BigInteger}): plain decimal.</li>
 *   <li>Containers: {@link Map} (insertion order kept, String keys) and {@link Collection}.</li>
 * </ul>
 * Anything else is rejected: llmperf's summary relies on {@code default=str}, and callers put those strings in
 * themselves (see the integer metrics' min/max).
 */
public final class PythonJsonWriter {

    private static final String INDENT = "    ";
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private PythonJsonWriter() {
    }

    /** The text {@code json.dump(value, f, indent=4)} would write. */
    public static String toJson(Object value) {
        StringBuilder out = new StringBuilder(256);
        writeValue(value, 0, out);
        return out.toString();
    }

    /**
     * Writes to {@code out} what {@link #toJson} writes for the list of {@code element(item)} for every item, one
     * element at a time: the elements' maps and the document's text never exist all at once (an array of 1,024
     * requests' maps and its text weighed some 1.5 MB besides the records they came from).
     */
    public static <T> void writeArray(Iterable<T> items, Function<? super T, ?> element, Writer out)
            throws IOException {
        StringBuilder text = new StringBuilder(512); // one element's, reused
        boolean first = true;
        for (T item : items) {
            text.setLength(0);
            text.append(first ? "[\n" : ",\n");
            first = false;
            indent(1, text);
            writeValue(element.apply(item), 1, text);
            out.append(text);
        }
        out.append(first ? "[]" : "\n]");
    }

    private static void writeValue(Object value, int depth, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String s) {
            writeString(s, out);
        } else if (value instanceof Boolean b) {
            out.append(b ? "true" : "false");
        } else if (value instanceof Double || value instanceof Float || value instanceof BigDecimal) {
            writeFloat(((Number) value).doubleValue(), out);
        } else if (value instanceof Integer || value instanceof Long || value instanceof Short
                || value instanceof Byte || value instanceof BigInteger) {
            out.append(value);
        } else if (value instanceof Map<?, ?> map) {
            writeObject(map, depth, out);
        } else if (value instanceof Collection<?> list) {
            writeArray(list, depth, out);
        } else {
            throw new IllegalArgumentException("cannot write " + value.getClass().getName()
                    + " as JSON; convert it to a String, Number, Boolean, Map or Collection first");
        }
    }

    private static void writeFloat(double x, StringBuilder out) {
        if (Double.isNaN(x)) {
            out.append("NaN");
        } else if (Double.isInfinite(x)) {
            out.append(x > 0 ? "Infinity" : "-Infinity");
        } else {
            out.append(PythonRepr.ofFloat(x));
        }
    }

    private static void writeObject(Map<?, ?> map, int depth, StringBuilder out) {
        if (map.isEmpty()) {
            out.append("{}");
            return;
        }
        out.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            if (!(entry.getKey() instanceof String key)) {
                throw new IllegalArgumentException("JSON object keys must be Strings, got " + entry.getKey());
            }
            out.append(first ? "\n" : ",\n");
            first = false;
            indent(depth + 1, out);
            writeString(key, out);
            out.append(": ");
            writeValue(entry.getValue(), depth + 1, out);
        }
        out.append('\n');
        indent(depth, out);
        out.append('}');
    }

    private static void writeArray(Collection<?> list, int depth, StringBuilder out) {
        if (list.isEmpty()) {
            out.append("[]");
            return;
        }
        out.append('[');
        boolean first = true;
        for (Object item : list) {
            out.append(first ? "\n" : ",\n");
            first = false;
            indent(depth + 1, out);
            writeValue(item, depth + 1, out);
        }
        out.append('\n');
        indent(depth, out);
        out.append(']');
    }

    private static void indent(int depth, StringBuilder out) {
        for (int i = 0; i < depth; i++) out.append(INDENT);
    }

    /** Python's {@code py_encode_basestring_ascii}. */
    private static void writeString(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c >= 0x20 && c <= 0x7E) {
                        out.append(c);
                    } else {
                        out.append("\\u").append(HEX[(c >> 12) & 0xF]).append(HEX[(c >> 8) & 0xF])
                                .append(HEX[(c >> 4) & 0xF]).append(HEX[c & 0xF]);
                    }
                }
            }
        }
        out.append('"');
    }
}

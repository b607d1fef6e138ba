package io.llmperf4j.engine.protocol;

import com.fasterxml.jackson.core.JsonToken;

import java.nio.charset.StandardCharsets;

/**
 * A {@link JsonCursor} over UTF-8 bytes for the common chunk: a root object of well-formed JSON. It is strict where
 * Jackson is strict and gives up ({@link Unsure}) on anything it does not answer exactly as Jackson would (a root
 * that is no object, invalid or doubtful syntax, invalid or replacement-character UTF-8, integers of 10 or more digits
 * asked for, deep nesting, huge strings); the caller then parses the same bytes with Jackson. Per chunk it creates
 * only the strings asked for, where Jackson builds a parser, its buffers and a name table lookup per field.
 *
 * <p>Not thread-safe; one per parse.
 */
final class ByteJsonCursor implements JsonCursor {

    /** This cursor cannot tell what Jackson would say: parse with Jackson. Carries no stack trace. */
    static final class Unsure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        static final Unsure INSTANCE = new Unsure();

        private Unsure() {
            super("left to Jackson", null, false, false);
        }
    }

    /** Far below Jackson's own limits (nesting 1,000, strings of 20 M chars, numbers of 1,000 digits). */
    private static final int MAX_DEPTH = 200;
    private static final int MAX_STRING_BYTES = 1 << 20;
    private static final int MAX_NUMBER_BYTES = 200;
    private static final int INT_SIZED_DIGITS = 9;
    /** Names of the chunk fields, returned without building a new string each time. */
    private static final String[] KNOWN_NAMES = {"id", "object", "created", "model", "choices", "index", "delta",
            "role", "content", "logprobs", "finish_reason", "usage", "prompt_tokens", "completion_tokens",
            "total_tokens", "system_fingerprint", "message", "text", "reasoning_content", "reasoning", "error",
            "stop_reason", "tool_calls", "refusal", "service_tier", "prompt_tokens_details",
            "completion_tokens_details", "cached_tokens", "reasoning_tokens", "code", "type", "param"};
    private static final byte[][] KNOWN_NAME_BYTES = new byte[KNOWN_NAMES.length][];

    static {
        for (int i = 0; i < KNOWN_NAMES.length; i++) {
            KNOWN_NAME_BYTES[i] = KNOWN_NAMES[i].getBytes(StandardCharsets.US_ASCII);
        }
    }

    private final byte[] data;
    private int pos;
    private final byte[] containers = new byte[MAX_DEPTH];
    private final boolean[] hasItems = new boolean[MAX_DEPTH];
    private int depth;
    private boolean rootDone;
    private JsonToken current;
    private String name;
    private String text;
    private int numberStart;
    private int numberEnd;

    ByteJsonCursor(byte[] data) {
        this.data = data;
    }

    @Override
    public JsonToken nextToken() {
        skipWhitespace();
        if (depth == 0) {
            if (rootDone) {
                if (pos == data.length) return current = null;
                throw Unsure.INSTANCE; // a second root value or trailing garbage: Jackson's message
            }
            if (pos == data.length || data[pos] != '{') throw Unsure.INSTANCE;
            return current = push((byte) '{');
        }
        if (pos == data.length) throw Unsure.INSTANCE;
        byte c = data[pos];
        if (containers[depth - 1] == '{') {
            if (current == JsonToken.FIELD_NAME) {
                if (c != ':') throw Unsure.INSTANCE;
                pos++;
                skipWhitespace();
                return current = value();
            }
            if (c == '}') {
                pos++;
                return current = pop(JsonToken.END_OBJECT);
            }
            if (hasItems[depth - 1]) {
                if (c != ',') throw Unsure.INSTANCE;
                pos++;
                skipWhitespace();
            }
            if (pos == data.length || data[pos] != '"') throw Unsure.INSTANCE;
            name = fieldName();
            return current = JsonToken.FIELD_NAME;
        }
        if (c == ']') {
            pos++;
            return current = pop(JsonToken.END_ARRAY);
        }
        if (hasItems[depth - 1]) {
            if (c != ',') throw Unsure.INSTANCE;
            pos++;
            skipWhitespace();
        }
        return current = value();
    }

    @Override
    public JsonToken currentToken() {
        return current;
    }

    @Override
    public String currentName() {
        return name;
    }

    @Override
    public String getText() {
        if (current != JsonToken.VALUE_STRING) throw Unsure.INSTANCE;
        return text;
    }

    @Override
    public int getIntValue() {
        if (!isIntSized()) throw Unsure.INSTANCE;
        int i = numberStart;
        boolean negative = data[i] == '-';
        if (negative) i++;
        int value = 0;
        for (; i < numberEnd; i++) value = value * 10 + (data[i] - '0');
        return negative ? -value : value;
    }

    @Override
    public boolean isIntSized() {
        if (current != JsonToken.VALUE_NUMBER_INT) throw Unsure.INSTANCE;
        int digits = numberEnd - numberStart - (data[numberStart] == '-' ? 1 : 0);
        if (digits > INT_SIZED_DIGITS) throw Unsure.INSTANCE; // may or may not fit: Jackson decides
        return true;
    }

    @Override
    public void skipChildren() {
        if (current != JsonToken.START_OBJECT && current != JsonToken.START_ARRAY) return;
        int target = depth - 1;
        while (depth > target) nextToken();
    }

    private JsonToken push(byte container) {
        if (depth == MAX_DEPTH) throw Unsure.INSTANCE;
        containers[depth] = container;
        hasItems[depth] = false;
        depth++;
        pos++;
        return container == '{' ? JsonToken.START_OBJECT : JsonToken.START_ARRAY;
    }

    private JsonToken pop(JsonToken end) {
        depth--;
        valueDone();
        return end;
    }

    private void valueDone() {
        if (depth > 0) {
            hasItems[depth - 1] = true;
        } else {
            rootDone = true;
        }
    }

    private JsonToken value() {
        if (pos == data.length) throw Unsure.INSTANCE;
        byte c = data[pos];
        JsonToken token;
        switch (c) {
            case '{':
                return push(c);
            case '[':
                return push(c);
            case '"':
                text = string();
                token = JsonToken.VALUE_STRING;
                break;
            case 't':
                literal("true");
                token = JsonToken.VALUE_TRUE;
                break;
            case 'f':
                literal("false");
                token = JsonToken.VALUE_FALSE;
                break;
            case 'n':
                literal("null");
                token = JsonToken.VALUE_NULL;
                break;
            default:
                token = number();
        }
        valueDone();
        if (pos < data.length && !isDelimiter(data[pos])) throw Unsure.INSTANCE; // e.g. "truex", "12a"
        return token;
    }

    private static boolean isDelimiter(byte b) {
        return b == ',' || b == '}' || b == ']' || b == ' ' || b == '\n' || b == '\r' || b == '\t';
    }

    private void literal(String word) {
        if (pos + word.length() > data.length) throw Unsure.INSTANCE;
        for (int i = 0; i < word.length(); i++) {
            if (data[pos + i] != word.charAt(i)) throw Unsure.INSTANCE;
        }
        pos += word.length();
    }

    /** JSON's number grammar exactly: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
    private JsonToken number() {
        int start = pos;
        if (pos < data.length && data[pos] == '-') pos++;
        if (pos == data.length || !isDigit(data[pos])) throw Unsure.INSTANCE;
        if (data[pos] == '0') {
            pos++;
        } else {
            while (pos < data.length && isDigit(data[pos])) pos++;
        }
        boolean integer = true;
        if (pos < data.length && data[pos] == '.') {
            integer = false;
            pos++;
            if (pos == data.length || !isDigit(data[pos])) throw Unsure.INSTANCE;
            while (pos < data.length && isDigit(data[pos])) pos++;
        }
        if (pos < data.length && (data[pos] == 'e' || data[pos] == 'E')) {
            integer = false;
            pos++;
            if (pos < data.length && (data[pos] == '+' || data[pos] == '-')) pos++;
            if (pos == data.length || !isDigit(data[pos])) throw Unsure.INSTANCE;
            while (pos < data.length && isDigit(data[pos])) pos++;
        }
        if (pos - start > MAX_NUMBER_BYTES) throw Unsure.INSTANCE;
        numberStart = start;
        numberEnd = pos;
        return integer ? JsonToken.VALUE_NUMBER_INT : JsonToken.VALUE_NUMBER_FLOAT;
    }

    private static boolean isDigit(byte b) {
        return b >= '0' && b <= '9';
    }

    private String fieldName() {
        int start = pos + 1;
        int end = start;
        while (end < data.length && data[end] != '"' && data[end] != '\\' && data[end] >= 0x20) end++;
        if (end < data.length && data[end] == '"') {
            int length = end - start;
            for (int k = 0; k < KNOWN_NAMES.length; k++) {
                byte[] known = KNOWN_NAME_BYTES[k];
                if (known.length == length && regionEquals(start, known)) {
                    pos = end + 1;
                    return KNOWN_NAMES[k];
                }
            }
        }
        return string();
    }

    private boolean regionEquals(int start, byte[] expected) {
        for (int i = 0; i < expected.length; i++) {
            if (data[start + i] != expected[i]) return false;
        }
        return true;
    }

    /** The string starting at the quote at {@code pos}; {@code pos} ends past its closing quote. */
    private String string() {
        int start = pos + 1;
        int i = start;
        boolean ascii = true;
        while (true) {
            if (i == data.length) throw Unsure.INSTANCE;
            byte b = data[i];
            if (b == '"') break;
            if (b == '\\') return escapedString(start);
            if (b < 0) {
                ascii = false;
            } else if (b < 0x20) {
                throw Unsure.INSTANCE; // an unescaped control character: Jackson's error
            }
            i++;
        }
        if (i - start > MAX_STRING_BYTES) throw Unsure.INSTANCE;
        pos = i + 1;
        return ascii ? new String(data, start, i - start, StandardCharsets.ISO_8859_1) : utf8(start, i);
    }

    /** Valid UTF-8 decodes alike everywhere; a replacement character may stand for bytes Jackson rejects. */
    private String utf8(int from, int to) {
        String s = new String(data, from, to - from, StandardCharsets.UTF_8);
        if (s.indexOf('\uFFFD') >= 0) throw Unsure.INSTANCE;
        return s;
    }

    private String escapedString(int start) {
        StringBuilder out = new StringBuilder();
        int segment = start;
        int i = start;
        while (true) {
            if (i == data.length || i - start > MAX_STRING_BYTES) throw Unsure.INSTANCE;
            byte b = data[i];
            if (b == '"') {
                out.append(utf8(segment, i));
                pos = i + 1;
                return out.toString();
            }
            if (b >= 0 && b < 0x20) throw Unsure.INSTANCE;
            if (b != '\\') {
                i++;
                continue;
            }
            out.append(utf8(segment, i));
            if (i + 1 == data.length) throw Unsure.INSTANCE;
            byte e = data[i + 1];
            i += 2;
            switch (e) {
                case '"' -> out.append('"');
                case '\\' -> out.append('\\');
                case '/' -> out.append('/');
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    if (i + 4 > data.length) throw Unsure.INSTANCE;
                    int code = 0;
                    for (int k = 0; k < 4; k++) code = code * 16 + hex(data[i + k]);
                    out.append((char) code);
                    i += 4;
                }
                default -> throw Unsure.INSTANCE;
            }
            segment = i;
        }
    }

    private static int hex(byte b) {
        if (b >= '0' && b <= '9') return b - '0';
        if (b >= 'a' && b <= 'f') return b - 'a' + 10;
        if (b >= 'A' && b <= 'F') return b - 'A' + 10;
        throw Unsure.INSTANCE;
    }

    private void skipWhitespace() {
        while (pos < data.length) {
            byte b = data[pos];
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') return;
            pos++;
        }
    }
}

package io.llmperf4j.engine.protocol;

import com.fasterxml.jackson.core.JsonToken;

import java.nio.charset.StandardCharsets;

/**
 * A {@link JsonCursor} over UTF-8 bytes for the common chunk: a root object of well-formed JSON. It is strict where
 * Jackson is strict and gives up ({@link Unsure}) on anything it does not answer exactly as Jackson would (a root
 * that is no object, invalid or doubtful syntax, invalid or replacement-character UTF-8, integers of 10 or more digits
 * asked for, deep nesting, huge strings); the caller then parses the same bytes with Jackson. Per chunk it creates
 * only the strings asked for (field names of chunks are constants), where Jackson builds a parser and its buffers.
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
    private static final int MAX_DEPTH = 63;
    private static final int MAX_STRING_BYTES = 1 << 20;
    private static final int MAX_NUMBER_BYTES = 200;
    private static final int INT_SIZED_DIGITS = 9;
    /** Names of the chunk fields, returned without building a new string each time. */
    private static final String[] KNOWN_NAMES = {"id", "object", "created", "model", "choices", "index", "delta",
            "role", "content", "logprobs", "finish_reason", "usage", "prompt_tokens", "completion_tokens",
            "total_tokens", "system_fingerprint", "message", "text", "reasoning_content", "reasoning", "error",
            "stop_reason", "tool_calls", "refusal", "service_tier", "prompt_tokens_details",
            "completion_tokens_details", "cached_tokens", "reasoning_tokens", "code", "type", "param"};
    /** {@link #KNOWN_NAMES} by the hash of their bytes ({@link #nameSlot}), open addressing. */
    private static final String[] NAME_TABLE = new String[256];
    private static final byte[][] NAME_TABLE_BYTES = new byte[NAME_TABLE.length][];

    static {
        for (String known : KNOWN_NAMES) {
            byte[] bytes = known.getBytes(StandardCharsets.US_ASCII);
            int hash = 0;
            for (byte b : bytes) hash = hash * 31 + b;
            int slot = nameSlot(hash);
            while (NAME_TABLE[slot] != null) slot = (slot + 1) & (NAME_TABLE.length - 1);
            NAME_TABLE[slot] = known;
            NAME_TABLE_BYTES[slot] = bytes;
        }
    }

    private static int nameSlot(int hash) {
        return (hash ^ (hash >>> 8) ^ (hash >>> 16)) & (NAME_TABLE.length - 1);
    }

    private final byte[] data;
    private int pos;
    /** Bit d: the container at depth d is an object (else an array); has had a value (then a comma must come). */
    private long objects;
    private long hasItems;
    private int depth;
    private boolean rootDone;
    private JsonToken current;
    private String name;
    /** The current string value's bytes (between the quotes) and whether they hold escapes or non-ASCII bytes. */
    private int stringStart;
    private int stringEnd;
    private boolean stringEscaped;
    private boolean stringAscii;
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
            return current = push(true);
        }
        if (pos == data.length) throw Unsure.INSTANCE;
        byte c = data[pos];
        if (isObject(depth - 1)) {
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
            if (hasItems(depth - 1)) {
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
        if (hasItems(depth - 1)) {
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
        return getTextOfString(); // validated UTF-8 decodes exactly as Jackson decodes it
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
    public int stringStart() {
        return current == JsonToken.VALUE_STRING ? stringStart : -1;
    }

    @Override
    public int stringEnd() {
        return current == JsonToken.VALUE_STRING ? stringEnd : -1;
    }

    /**
     * The text of {@code data[start, end)} read as the body of one JSON string whose closing quote is at {@code end}:
     * the value Jackson would give that string, or null when those bytes are not exactly one string body (an
     * unescaped quote or control character before {@code end}, a bad escape, invalid UTF-8, an escape that swallows
     * the quote at {@code end}) or are anything this cursor leaves to Jackson.
     */
    static String stringBody(byte[] data, int start, int end) {
        if (start < 1 || end >= data.length || data[end] != '"' || end < start) return null;
        // printable ASCII without quote or backslash is its own text: no cursor (one per streamed chunk, and the
        // JIT's escape analysis could not remove it: at the stream ceiling, a quarter of the client's allocation)
        if (isPlainAscii(data, start, end)) return new String(data, start, end - start, StandardCharsets.ISO_8859_1);
        ByteJsonCursor cursor = new ByteJsonCursor(data);
        cursor.pos = start - 1; // the opening quote's place: scanString starts past it
        try {
            cursor.scanString();
        } catch (Unsure e) {
            return null;
        }
        return cursor.stringEnd == end ? cursor.getTextOfString() : null;
    }

    /** No byte below 0x20 (control characters, and every non-ASCII byte, which is negative), no quote, no backslash. */
    private static boolean isPlainAscii(byte[] data, int from, int to) {
        for (int i = from; i < to; i++) {
            byte b = data[i];
            if (b < 0x20 || b == '"' || b == '\\') return false;
        }
        return true;
    }

    @Override
    public void skipChildren() {
        if (current != JsonToken.START_OBJECT && current != JsonToken.START_ARRAY) return;
        int target = depth - 1;
        while (depth > target) nextToken();
    }

    private boolean isObject(int level) {
        return (objects & (1L << level)) != 0;
    }

    private boolean hasItems(int level) {
        return (hasItems & (1L << level)) != 0;
    }

    private JsonToken push(boolean object) {
        if (depth == MAX_DEPTH) throw Unsure.INSTANCE;
        long bit = 1L << depth;
        objects = object ? objects | bit : objects & ~bit;
        hasItems &= ~bit;
        depth++;
        pos++;
        return object ? JsonToken.START_OBJECT : JsonToken.START_ARRAY;
    }

    private JsonToken pop(JsonToken end) {
        depth--;
        valueDone();
        return end;
    }

    private void valueDone() {
        if (depth > 0) {
            hasItems |= 1L << (depth - 1);
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
                return push(true);
            case '[':
                return push(false);
            case '"':
                scanString();
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
        int hash = 0;
        int end = start;
        while (end < data.length) {
            byte b = data[end];
            if (b == '"' || b == '\\' || b < 0x20) break; // non-ASCII bytes are negative: no known name
            hash = hash * 31 + b;
            end++;
        }
        if (end < data.length && data[end] == '"') {
            for (int slot = nameSlot(hash); NAME_TABLE[slot] != null; slot = (slot + 1) & (NAME_TABLE.length - 1)) {
                byte[] known = NAME_TABLE_BYTES[slot];
                if (known.length == end - start && regionEquals(start, known)) {
                    pos = end + 1;
                    return NAME_TABLE[slot];
                }
            }
        }
        scanString();
        return getTextOfString();
    }

    private String getTextOfString() {
        if (stringEscaped) return escapedString(stringStart, stringEnd);
        if (stringAscii) return new String(data, stringStart, stringEnd - stringStart, StandardCharsets.ISO_8859_1);
        return new String(data, stringStart, stringEnd - stringStart, StandardCharsets.UTF_8);
    }

    private boolean regionEquals(int start, byte[] expected) {
        for (int i = 0; i < expected.length; i++) {
            if (data[start + i] != expected[i]) return false;
        }
        return true;
    }

    /**
     * Checks the string starting at the quote at {@code pos} without decoding it ({@link #getText} decodes the ones
     * asked for): no raw control characters, valid escapes, strictly valid UTF-8 (Jackson accepts all of that, and
     * what it might reject this leaves to it). {@code pos} ends past the closing quote.
     */
    private void scanString() {
        int start = pos + 1;
        int i = start;
        boolean escaped = false;
        boolean ascii = true;
        while (true) {
            if (i >= data.length) throw Unsure.INSTANCE;
            byte b = data[i];
            if (b == '"') break;
            if (b >= 0x20 && b != '\\') {
                i++;
            } else if (b == '\\') {
                escaped = true;
                i = escapeEnd(i);
            } else if (b < 0) {
                ascii = false;
                i = utf8SequenceEnd(i);
            } else {
                throw Unsure.INSTANCE; // an unescaped control character: Jackson's error
            }
        }
        if (i - start > MAX_STRING_BYTES) throw Unsure.INSTANCE;
        stringStart = start;
        stringEnd = i;
        stringEscaped = escaped;
        stringAscii = ascii;
        pos = i + 1;
    }

    /** Past the escape at {@code i}. */
    private int escapeEnd(int i) {
        if (i + 1 >= data.length) throw Unsure.INSTANCE;
        switch (data[i + 1]) {
            case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
                return i + 2;
            case 'u':
                if (i + 6 > data.length) throw Unsure.INSTANCE;
                for (int k = 2; k < 6; k++) hex(data[i + k]);
                return i + 6;
            default:
                throw Unsure.INSTANCE;
        }
    }

    /** Past the UTF-8 sequence starting at {@code i}; only shortest forms of scalar values (RFC 3629). */
    private int utf8SequenceEnd(int i) {
        int b0 = data[i] & 0xFF;
        int length;
        int min;
        if (b0 >= 0xC2 && b0 <= 0xDF) {
            length = 2;
            min = 0x80;
        } else if (b0 >= 0xE0 && b0 <= 0xEF) {
            length = 3;
            min = 0x800;
        } else if (b0 >= 0xF0 && b0 <= 0xF4) {
            length = 4;
            min = 0x10000;
        } else {
            throw Unsure.INSTANCE;
        }
        if (i + length > data.length) throw Unsure.INSTANCE;
        int cp = b0 & (0xFF >> (length + 1));
        for (int k = 1; k < length; k++) {
            int b = data[i + k] & 0xFF;
            if ((b & 0xC0) != 0x80) throw Unsure.INSTANCE;
            cp = (cp << 6) | (b & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) throw Unsure.INSTANCE;
        return i + length;
    }

    /** Decodes a string holding escapes (already checked by {@link #scanString}). */
    private String escapedString(int from, int to) {
        StringBuilder out = new StringBuilder(to - from);
        int segment = from;
        int i = from;
        while (i < to) {
            if (data[i] != '\\') {
                i++;
                continue;
            }
            out.append(new String(data, segment, i - segment, StandardCharsets.UTF_8));
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
                default -> { // 'u', checked
                    int code = 0;
                    for (int k = 0; k < 4; k++) code = code * 16 + hex(data[i + k]);
                    out.append((char) code);
                    i += 4;
                }
            }
            segment = i;
        }
        out.append(new String(data, segment, to - segment, StandardCharsets.UTF_8));
        return out.toString();
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

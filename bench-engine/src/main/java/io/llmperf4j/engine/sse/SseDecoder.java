package io.llmperf4j.engine.sse;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Decodes a Server-Sent Events byte stream (WHATWG HTML "event stream interpretation") into {@link SseEvent}s,
 * correct for any split of the bytes across reads.
 *
 * <ul>
 *   <li>Lines end in LF, CRLF or CR; a CR whose LF arrives in the next read is one line end, not two.</li>
 *   <li>{@code data:} with or without the single leading space; several {@code data:} lines of one event are joined
 *       with LF; {@code event:} sets the event type; {@code id:}, {@code retry:}, unknown fields and comment lines
 *       ({@code : keepalive}) are ignored; a UTF-8 BOM before the first line is skipped. A line of an unknown field
 *       (a {@code hello}, a JSON chunk without {@code data:}) is handed to {@link SseEventSink#onIgnoredLine}, so
 *       that what the standard drops is counted, not lost unseen.</li>
 *   <li>An empty line dispatches the event if it had at least one {@code data} line.</li>
 *   <li>Each event carries the arrival time passed to the {@link #decode} call that completed it.</li>
 *   <li>Event data larger than {@code maxEventBytes} fails with {@link TooLongSseEventException}; after that the
 *       decoder must be discarded (the stream cannot be resynchronised cheaply, and the request fails anyway).</li>
 * </ul>
 * Not thread-safe: one decoder per response, used on one thread. Buffers passed in are read, not released.
 */
public final class SseDecoder {

    private static final int INITIAL_BUFFER_BYTES = 256;
    /** A buffer grown beyond this by one large event or read is dropped, so idle decoders stay small. */
    private static final int RETAINED_BUFFER_BYTES = 64 * 1024;
    /** Room for a field name, colon, space and BOM on top of the data of a single-line event. */
    private static final int LINE_OVERHEAD_BYTES = 64;
    private static final byte[] DATA = "data".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EVENT = "event".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ID = "id".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RETRY = "retry".getBytes(StandardCharsets.US_ASCII);

    private final int maxEventBytes;
    private final long maxLineBytes;

    /** The last read ended with a CR: a LF that starts the next read belongs to that line end and is skipped. */
    private boolean skipLf;
    private boolean firstLine = true;
    /** Bytes taken from the reads; {@code [0, partialLength)} is the start of a line whose end has not come yet. */
    private byte[] pending = new byte[INITIAL_BUFFER_BYTES];
    private int partialLength;
    private byte[] data = new byte[INITIAL_BUFFER_BYTES];
    private int dataLength;
    private boolean hasData;
    private String eventType;

    public SseDecoder(int maxEventBytes) {
        if (maxEventBytes < 1) {
            throw new IllegalArgumentException("maxEventBytes (" + maxEventBytes + ") must be >= 1");
        }
        this.maxEventBytes = maxEventBytes;
        this.maxLineBytes = (long) maxEventBytes + LINE_OVERHEAD_BYTES;
    }

    public int maxEventBytes() {
        return maxEventBytes;
    }

    /**
     * Consumes all readable bytes of {@code in}, dispatching every event they complete to {@code sink}.
     *
     * <p>The bytes are copied out once and their line ends searched in that array, eight bytes at a time. Searching
     * the buffer itself costs a call chain per byte (the HTTP decoder's slice, the pooled buffer, memory): 37 % of the
     * client's execution samples at the stream ceiling, more than any other step of a chunk.
     *
     * @param arrivalNanos {@code System.nanoTime()} of the read that delivered these bytes
     * @throws TooLongSseEventException when an event exceeds {@code maxEventBytes}
     */
    public void decode(ByteBuf in, long arrivalNanos, SseEventSink sink) {
        int readable = in.readableBytes();
        if (readable == 0) return;
        int end = partialLength + readable;
        pending = ensureCapacity(pending, end);
        in.readBytes(pending, partialLength, readable);
        int lineStart = 0;
        int scanFrom = partialLength; // the partial line was searched when it came
        if (skipLf) {
            skipLf = false;
            if (pending[0] == '\n') lineStart = scanFrom = 1; // a CR ended the last read: no partial line
        }
        int eol;
        while ((eol = LineEnds.indexOf(pending, scanFrom, end)) >= 0) {
            checkLineLength(eol - lineStart);
            processLine(pending, lineStart, eol, arrivalNanos, sink);
            if (pending[eol] == '\r') {
                if (eol + 1 == end) skipLf = true;
                else if (pending[eol + 1] == '\n') eol++;
            }
            lineStart = scanFrom = eol + 1;
        }
        keepPartialLine(lineStart, end);
    }

    /**
     * Ends the stream: an unterminated last line is processed and a pending event is dispatched. The SSE standard
     * would drop that event; line-based clients such as llmperf's {@code iter_lines} keep it, and so do we, so that
     * a server that omits the final blank line is still measured.
     */
    public void finish(long arrivalNanos, SseEventSink sink) {
        if (partialLength > 0) {
            int length = partialLength;
            partialLength = 0;
            processLine(pending, 0, length, arrivalNanos, sink);
        }
        dispatch(arrivalNanos, sink);
        skipLf = false;
    }

    /** True when bytes of an event (a partial line or undispatched data) are buffered. */
    public boolean hasPendingBytes() {
        return partialLength > 0 || hasData;
    }

    private void checkLineLength(int length) {
        if (length > maxLineBytes) throw new TooLongSseEventException((long) dataLength + length, maxEventBytes);
    }

    /** Moves the start of the line still open to the front, failing before an endless line is buffered further. */
    private void keepPartialLine(int lineStart, int end) {
        int length = end - lineStart;
        checkLineLength(length);
        if (pending.length > RETAINED_BUFFER_BYTES && length <= INITIAL_BUFFER_BYTES) {
            byte[] small = new byte[INITIAL_BUFFER_BYTES];
            System.arraycopy(pending, lineStart, small, 0, length);
            pending = small;
        } else if (lineStart > 0 && length > 0) {
            System.arraycopy(pending, lineStart, pending, 0, length);
        }
        partialLength = length;
    }

    private void processLine(byte[] line, int from, int to, long arrivalNanos, SseEventSink sink) {
        int offset = from;
        if (firstLine) {
            firstLine = false;
            if (to - from >= 3 && line[from] == (byte) 0xEF && line[from + 1] == (byte) 0xBB
                    && line[from + 2] == (byte) 0xBF) {
                offset += 3;
            }
        }
        if (offset == to) {
            dispatch(arrivalNanos, sink);
            return;
        }
        if (line[offset] == ':') {
            return; // comment, e.g. ": keepalive"
        }
        int colon = indexOf(line, offset, to, (byte) ':');
        int nameEnd = colon < 0 ? to : colon;
        int valueStart = colon < 0 ? to : colon + 1;
        if (valueStart < to && line[valueStart] == ' ') {
            valueStart++;
        }
        if (regionEquals(line, offset, nameEnd, DATA)) {
            appendData(line, valueStart, to - valueStart);
        } else if (regionEquals(line, offset, nameEnd, EVENT)) {
            eventType = new String(line, valueStart, to - valueStart, StandardCharsets.UTF_8);
        } else if (!regionEquals(line, offset, nameEnd, ID) && !regionEquals(line, offset, nameEnd, RETRY)) {
            // ignored, as the standard says, but told: a chunk without "data:" is output the run would lose unseen
            sink.onIgnoredLine(line, offset, to);
        }
        // id and retry: chat completion streams carry nothing we need in them
    }

    private void appendData(byte[] line, int from, int length) {
        int separator = hasData ? 1 : 0;
        long newLength = (long) dataLength + separator + length;
        if (newLength > maxEventBytes) {
            throw new TooLongSseEventException(newLength, maxEventBytes);
        }
        data = ensureCapacity(data, (int) newLength);
        if (separator == 1) {
            data[dataLength++] = '\n';
        }
        System.arraycopy(line, from, data, dataLength, length);
        dataLength += length;
        hasData = true;
    }

    private void dispatch(long arrivalNanos, SseEventSink sink) {
        if (!hasData) {
            eventType = null; // a blank line after comments or an event: line only
            return;
        }
        byte[] lent = data;
        int length = dataLength;
        String type = eventType;
        hasData = false;
        dataLength = 0;
        eventType = null;
        if (data.length > RETAINED_BUFFER_BYTES) {
            data = new byte[INITIAL_BUFFER_BYTES];
        }
        sink.onEvent(type, lent, 0, length, arrivalNanos); // nothing appends to data until this returns
    }

    private static byte[] ensureCapacity(byte[] buffer, int needed) {
        if (needed <= buffer.length) return buffer;
        int grown = (int) Math.min(Integer.MAX_VALUE - 8L, Math.max(needed, 2L * buffer.length));
        return Arrays.copyOf(buffer, grown);
    }

    private static int indexOf(byte[] bytes, int from, int to, byte b) {
        for (int i = from; i < to; i++) {
            if (bytes[i] == b) return i;
        }
        return -1;
    }

    private static boolean regionEquals(byte[] bytes, int from, int to, byte[] expected) {
        if (to - from != expected.length) return false;
        for (int i = 0; i < expected.length; i++) {
            if (bytes[from + i] != expected[i]) return false;
        }
        return true;
    }
}

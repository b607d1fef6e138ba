package io.llmperf4j.engine.sse;

import io.netty.buffer.ByteBuf;
import io.netty.util.ByteProcessor;

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
 *       ({@code : keepalive}) are ignored; a UTF-8 BOM before the first line is skipped.</li>
 *   <li>An empty line dispatches the event if it had at least one {@code data} line.</li>
 *   <li>Each event carries the arrival time passed to the {@link #decode} call that completed it.</li>
 *   <li>Event data larger than {@code maxEventBytes} fails with {@link TooLongSseEventException}; after that the
 *       decoder must be discarded (the stream cannot be resynchronised cheaply, and the request fails anyway).</li>
 * </ul>
 * Not thread-safe: one decoder per response, used on one thread. Buffers passed in are read, not released.
 */
public final class SseDecoder {

    /** Where the line scanner is between reads. */
    private enum State {
        /** Collecting the bytes of a line up to its CR or LF. */
        READ_LINE,
        /** The previous line ended with CR; a LF that follows belongs to that line end and is skipped. */
        SKIP_LF
    }

    private static final int INITIAL_BUFFER_BYTES = 256;
    /** A buffer grown beyond this by one large event is dropped after dispatch, so idle decoders stay small. */
    private static final int RETAINED_BUFFER_BYTES = 64 * 1024;
    /** Room for a field name, colon, space and BOM on top of the data of a single-line event. */
    private static final int LINE_OVERHEAD_BYTES = 64;
    private static final byte[] DATA = "data".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EVENT = "event".getBytes(StandardCharsets.US_ASCII);

    private final int maxEventBytes;
    private final long maxLineBytes;

    private State state = State.READ_LINE;
    private boolean firstLine = true;
    private byte[] line = new byte[INITIAL_BUFFER_BYTES];
    private int lineLength;
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
     * @param arrivalNanos {@code System.nanoTime()} of the read that delivered these bytes
     * @throws TooLongSseEventException when an event exceeds {@code maxEventBytes}
     */
    public void decode(ByteBuf in, long arrivalNanos, SseEventSink sink) {
        while (in.isReadable()) {
            switch (state) {
                case SKIP_LF:
                    if (in.getByte(in.readerIndex()) == '\n') {
                        in.skipBytes(1);
                    }
                    state = State.READ_LINE;
                    break;
                case READ_LINE: {
                    int start = in.readerIndex();
                    int end = in.writerIndex();
                    int eol = in.forEachByte(start, end - start, ByteProcessor.FIND_CRLF);
                    appendToLine(in, start, (eol < 0 ? end : eol) - start);
                    if (eol < 0) {
                        in.readerIndex(end);
                        return; // wait for the rest of the line
                    }
                    byte terminator = in.getByte(eol);
                    in.readerIndex(eol + 1);
                    if (terminator == '\r') {
                        state = State.SKIP_LF;
                    }
                    processLine(arrivalNanos, sink);
                    break;
                }
                default:
                    throw new IllegalStateException("unknown state " + state);
            }
        }
    }

    /**
     * Ends the stream: an unterminated last line is processed and a pending event is dispatched. The SSE standard
     * would drop that event; line-based clients such as llmperf's {@code iter_lines} keep it, and so do we, so that
     * a server that omits the final blank line is still measured.
     */
    public void finish(long arrivalNanos, SseEventSink sink) {
        if (lineLength > 0) {
            processLine(arrivalNanos, sink);
        }
        dispatch(arrivalNanos, sink);
        state = State.READ_LINE;
    }

    /** True when bytes of an event (a partial line or undispatched data) are buffered. */
    public boolean hasPendingBytes() {
        return lineLength > 0 || hasData;
    }

    private void appendToLine(ByteBuf in, int index, int length) {
        if (length == 0) return;
        if (lineLength + (long) length > maxLineBytes) {
            throw new TooLongSseEventException((long) dataLength + lineLength + length, maxEventBytes);
        }
        line = ensureCapacity(line, lineLength + length);
        in.getBytes(index, line, lineLength, length);
        lineLength += length;
    }

    private void processLine(long arrivalNanos, SseEventSink sink) {
        int length = lineLength;
        lineLength = 0;
        int offset = 0;
        if (firstLine) {
            firstLine = false;
            if (length >= 3 && line[0] == (byte) 0xEF && line[1] == (byte) 0xBB && line[2] == (byte) 0xBF) {
                offset = 3;
            }
        }
        if (offset == length) {
            dispatch(arrivalNanos, sink);
            return;
        }
        if (line[offset] == ':') {
            return; // comment, e.g. ": keepalive"
        }
        int colon = indexOf(line, offset, length, (byte) ':');
        int nameEnd = colon < 0 ? length : colon;
        int valueStart = colon < 0 ? length : colon + 1;
        if (valueStart < length && line[valueStart] == ' ') {
            valueStart++;
        }
        if (regionEquals(line, offset, nameEnd, DATA)) {
            appendData(valueStart, length - valueStart);
        } else if (regionEquals(line, offset, nameEnd, EVENT)) {
            eventType = new String(line, valueStart, length - valueStart, StandardCharsets.UTF_8);
        }
        // id, retry and unknown fields: chat completion streams carry nothing we need in them
        if (line.length > RETAINED_BUFFER_BYTES) {
            line = new byte[INITIAL_BUFFER_BYTES];
        }
    }

    private void appendData(int from, int length) {
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
        SseEvent event = new SseEvent(eventType, Arrays.copyOf(data, dataLength), arrivalNanos);
        hasData = false;
        dataLength = 0;
        eventType = null;
        if (data.length > RETAINED_BUFFER_BYTES) {
            data = new byte[INITIAL_BUFFER_BYTES];
        }
        sink.onEvent(event);
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

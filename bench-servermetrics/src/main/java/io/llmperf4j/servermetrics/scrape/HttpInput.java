package io.llmperf4j.servermetrics.scrape;

import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * The bytes of one HTTP connection's responses, buffered, read by the calling thread. Kept for the connection's
 * life, so bytes a server sent early for the next response are not lost. Tells a connection that ended or failed
 * before a byte of the current response came back ({@link ScrapeConnection.NoResponseException}: a kept connection
 * the server closed while idle) from one cut short in the middle (a failed scrape).
 */
final class HttpInput {

    /** Called before each read from the socket: sets the read's timeout to what is left of the deadline. */
    @FunctionalInterface
    interface BeforeRead {
        void prepare() throws IOException;
    }

    static final String CUT_SHORT = "connection closed before the whole response came";

    private final InputStream in;
    private final BeforeRead beforeRead;
    private final byte[] buffer;
    /** The line being read, reused: a scrape reads a few dozen. */
    private byte[] line = new byte[0];
    private int position;
    private int limit;
    private boolean anyByte;

    HttpInput(InputStream in, BeforeRead beforeRead, int bufferBytes) {
        this.in = in;
        this.beforeRead = beforeRead;
        this.buffer = new byte[bufferBytes];
    }

    /** Marks the start of a response: whether any of it came back is counted from here. */
    void startResponse() {
        anyByte = position < limit;
    }

    /**
     * One line without its CR LF (or bare LF), as ISO-8859-1 text.
     *
     * @param maxBytes the longest line taken, its CR LF not counted
     * @param what     the line's name for the error message
     * @throws ScrapeFailedException when the line is longer than {@code maxBytes} or the connection ends within it
     */
    String readLine(int maxBytes, String what) throws IOException, ScrapeFailedException {
        if (line.length < maxBytes + 1) line = new byte[maxBytes + 1]; // + 1: the CR before the LF
        int length = 0;
        while (true) {
            if (position == limit && !fill()) throw new ScrapeFailedException(CUT_SHORT);
            byte b = buffer[position++];
            if (b == '\n') break;
            if (length == maxBytes + 1) throw tooLong(what, maxBytes);
            line[length++] = b;
        }
        if (length > 0 && line[length - 1] == '\r') length--;
        if (length > maxBytes) throw tooLong(what, maxBytes);
        return new String(line, 0, length, StandardCharsets.ISO_8859_1);
    }

    /** Exactly {@code count} bytes into {@code body}. */
    void readExactly(long count, LimitedBody body) throws IOException, ScrapeFailedException {
        long left = count;
        while (left > 0) {
            if (position == limit && !fill()) throw new ScrapeFailedException(CUT_SHORT);
            int n = (int) Math.min(left, limit - position);
            body.append(buffer, position, n);
            position += n;
            left -= n;
        }
    }

    /** Every byte until the server closes the connection, into {@code body}. */
    void readToEnd(LimitedBody body) throws IOException, ScrapeFailedException {
        while (position < limit || fill()) {
            body.append(buffer, position, limit - position);
            position = limit;
        }
    }

    /** Reads more bytes into the (consumed) buffer; false at the end of the stream once some response came. */
    private boolean fill() throws IOException {
        beforeRead.prepare();
        int n;
        try {
            n = in.read(buffer);
        } catch (SocketTimeoutException e) {
            throw e;
        } catch (IOException e) {
            if (!anyByte) throw new ScrapeConnection.NoResponseException(e);
            throw e;
        }
        if (n < 0) {
            if (!anyByte) throw new ScrapeConnection.NoResponseException(null);
            return false;
        }
        anyByte = true;
        position = 0;
        limit = n;
        return true;
    }

    private static ScrapeFailedException tooLong(String what, int maxBytes) {
        return new ScrapeFailedException(HttpResponseReader.malformed(what + " longer than " + maxBytes + " bytes"));
    }
}

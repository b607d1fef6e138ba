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
     * @param maxBytes the longest line taken
     * @param what     the line's name for the error message
     * @throws ScrapeFailedException when the line is longer than {@code maxBytes} or the connection ends within it
     */
    String readLine(int maxBytes, String what) throws IOException, ScrapeFailedException {
        StringBuilder line = null;
        while (true) {
            if (position == limit && !fill()) throw new ScrapeFailedException(CUT_SHORT);
            int start = position;
            while (position < limit && buffer[position] != '\n') position++;
            int length = position - start;
            int sofar = line == null ? 0 : line.length();
            if (sofar + length > maxBytes + 1) { // + 1: the CR before the LF
                throw new ScrapeFailedException(HttpResponseReader.malformed(what + " longer than " + maxBytes
                        + " bytes"));
            }
            if (position < limit) { // the LF
                position++;
                if (line == null) return text(buffer, start, length);
                line.append(new String(buffer, start, length, StandardCharsets.ISO_8859_1));
                return stripCr(line.toString()); // the CR may have come at the end of the previous read
            }
            if (line == null) line = new StringBuilder();
            line.append(new String(buffer, start, length, StandardCharsets.ISO_8859_1));
        }
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

    private static String text(byte[] bytes, int start, int length) {
        if (length > 0 && bytes[start + length - 1] == '\r') length--;
        return new String(bytes, start, length, StandardCharsets.ISO_8859_1);
    }

    private static String stripCr(String line) {
        return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
    }
}

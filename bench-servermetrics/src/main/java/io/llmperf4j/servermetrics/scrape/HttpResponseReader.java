package io.llmperf4j.servermetrics.scrape;

import java.io.IOException;
import java.util.Locale;

/**
 * Reads one HTTP/1.x response to a GET: the status line, the headers, and the body delimited by chunked transfer
 * coding, Content-Length or the connection's close; interim 1xx answers (100 Continue) before it are skipped. The
 * scrape's own parser, not Netty's HTTP codec: driving that codec through a second kind of channel, in the run's
 * JVM just before the measured window, changed the type profiles of the engine's compiled I/O path, and the JIT
 * threw that code away and compiled it again inside the window (issue 15).
 */
final class HttpResponseReader {

    /** Status line and each header line: generous, as a proxy in front of the server may add long ones. */
    static final int MAX_LINE_BYTES = 8 * 1024;
    /** All the header lines of one response together. */
    static final int MAX_HEAD_BYTES = 64 * 1024;

    private HttpResponseReader() {
    }

    /**
     * The next response on {@code in}, its body at most {@code maxBodyBytes}.
     *
     * @throws ScrapeConnection.NoResponseException when the connection ends or fails before a byte came back
     * @throws ScrapeFailedException                when the response is malformed, cut short or its body too large
     */
    static MetricsResponse read(HttpInput in, int maxBodyBytes) throws IOException, ScrapeFailedException {
        while (true) {
            ResponseHead head = ResponseHead.read(in);
            if (head.interim()) continue;
            LimitedBody body = new LimitedBody(maxBodyBytes);
            boolean endedByClose = false;
            if (!head.hasBody()) {
                // nothing to read: 204, 304, 101
            } else if (head.chunked()) {
                readChunked(in, body);
            } else if (head.contentLength() >= 0) {
                body.expect(head.contentLength());
                in.readExactly(head.contentLength(), body);
            } else {
                in.readToEnd(body);
                endedByClose = true;
            }
            return new MetricsResponse(head.status(), head.contentType(), head.location(), body.bytes(),
                    head.keepAlive() && !endedByClose);
        }
    }

    static String malformed(String why) {
        return "malformed HTTP response (" + why + ")";
    }

    /** Chunks (size in hex, optional extensions, data, CR LF) up to the zero-size one, then the trailer lines. */
    private static void readChunked(HttpInput in, LimitedBody body) throws IOException, ScrapeFailedException {
        while (true) {
            long size = chunkSize(in.readLine(MAX_LINE_BYTES, "chunk size line"));
            if (size == 0) break;
            body.expect(body.size() + size);
            in.readExactly(size, body);
            if (!in.readLine(MAX_LINE_BYTES, "chunk end").isEmpty()) {
                throw new ScrapeFailedException(malformed("chunk longer than its size"));
            }
        }
        int trailerBytes = 0;
        for (String line; !(line = in.readLine(MAX_LINE_BYTES, "trailer line")).isEmpty(); ) {
            trailerBytes += line.length();
            if (trailerBytes > MAX_HEAD_BYTES) {
                throw new ScrapeFailedException(malformed("trailer longer than " + MAX_HEAD_BYTES + " bytes"));
            }
        }
    }

    private static long chunkSize(String line) throws ScrapeFailedException {
        int end = line.indexOf(';');
        String hex = (end < 0 ? line : line.substring(0, end)).trim();
        if (hex.isEmpty() || hex.length() > 15) throw new ScrapeFailedException(malformed("bad chunk size"));
        try {
            return Long.parseLong(hex, 16);
        } catch (NumberFormatException e) {
            throw new ScrapeFailedException(malformed("bad chunk size"));
        }
    }

    /** The status line and the headers the scrape needs. */
    private record ResponseHead(int status, boolean keepAlive, long contentLength, boolean chunked,
                                String contentType, String location) {

        boolean interim() {
            return status >= 100 && status < 200 && status != 101;
        }

        boolean hasBody() {
            return status >= 200 && status != 204 && status != 304;
        }

        static ResponseHead read(HttpInput in) throws IOException, ScrapeFailedException {
            String statusLine;
            do { // empty lines before a response are tolerated (a stray CR LF after the last body)
                statusLine = in.readLine(MAX_LINE_BYTES, "status line");
            } while (statusLine.isEmpty());
            boolean http11 = statusLine.startsWith("HTTP/1.1 ");
            if (!http11 && !statusLine.startsWith("HTTP/1.0 ")) {
                throw new ScrapeFailedException(malformed("not an HTTP/1.x status line"));
            }
            int status = statusCode(statusLine);
            Headers headers = Headers.read(in);
            String connection = headers.connection == null ? "" : headers.connection.toLowerCase(Locale.ROOT);
            boolean keepAlive = http11 ? !hasToken(connection, "close") : hasToken(connection, "keep-alive");
            boolean chunked = headers.transferEncoding != null
                    && lastToken(headers.transferEncoding.toLowerCase(Locale.ROOT)).equals("chunked");
            if (headers.transferEncoding != null && !chunked) {
                keepAlive = false; // another coding last: the body ends with the connection (RFC 9112, 6.3)
            }
            return new ResponseHead(status, keepAlive, chunked ? -1 : headers.contentLength, chunked,
                    headers.contentType, headers.location);
        }

        private static int statusCode(String line) throws ScrapeFailedException {
            if (line.length() < 12 || (line.length() > 12 && line.charAt(12) != ' ')) {
                throw new ScrapeFailedException(malformed("bad status code"));
            }
            int code = 0;
            for (int i = 9; i < 12; i++) {
                char c = line.charAt(i);
                if (c < '0' || c > '9') throw new ScrapeFailedException(malformed("bad status code"));
                code = code * 10 + (c - '0');
            }
            if (code < 100) throw new ScrapeFailedException(malformed("bad status code"));
            return code;
        }

        private static boolean hasToken(String list, String token) {
            for (String part : list.split(",")) {
                if (part.trim().equals(token)) return true;
            }
            return false;
        }

        private static String lastToken(String list) {
            int comma = list.lastIndexOf(',');
            return list.substring(comma + 1).trim();
        }
    }

    /** The few headers a scrape reads; the rest are read past. */
    private static final class Headers {
        String connection;
        String transferEncoding;
        long contentLength = -1;
        String contentType;
        String location;

        static Headers read(HttpInput in) throws IOException, ScrapeFailedException {
            Headers h = new Headers();
            int headBytes = 0;
            String name = null;
            StringBuilder value = new StringBuilder();
            for (String line; !(line = in.readLine(MAX_LINE_BYTES, "header line")).isEmpty(); ) {
                headBytes += line.length() + 2;
                if (headBytes > MAX_HEAD_BYTES) {
                    throw new ScrapeFailedException(malformed("head longer than " + MAX_HEAD_BYTES + " bytes"));
                }
                char first = line.charAt(0);
                if (first == ' ' || first == '\t') { // an obsolete folded line: more of the header above
                    if (name == null) throw new ScrapeFailedException(malformed("folded line without a header"));
                    value.append(' ').append(line.trim());
                    continue;
                }
                if (name != null) h.take(name, value.toString());
                int colon = line.indexOf(':');
                if (colon <= 0 || !isToken(line, colon)) {
                    throw new ScrapeFailedException(malformed("bad header line"));
                }
                name = line.substring(0, colon).toLowerCase(Locale.ROOT);
                value.setLength(0);
                value.append(line.substring(colon + 1).trim());
            }
            if (name != null) h.take(name, value.toString());
            return h;
        }

        private void take(String name, String value) throws ScrapeFailedException {
            switch (name) {
                case "connection" -> connection = connection == null ? value : connection + ", " + value;
                case "transfer-encoding" ->
                        transferEncoding = transferEncoding == null ? value : transferEncoding + ", " + value;
                case "content-type" -> contentType = contentType == null ? value : contentType;
                case "location" -> location = location == null ? value : location;
                case "content-length" -> {
                    long length = contentLength(value);
                    if (contentLength >= 0 && contentLength != length) {
                        throw new ScrapeFailedException(malformed("two different Content-Length values"));
                    }
                    contentLength = length;
                }
                default -> {
                    // not needed by a scrape
                }
            }
        }

        private static long contentLength(String value) throws ScrapeFailedException {
            long length = -1;
            for (String part : value.split(",")) { // "5, 5" is one length told twice
                String digits = part.trim();
                if (digits.isEmpty() || digits.length() > 18 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
                    throw new ScrapeFailedException(malformed("bad Content-Length"));
                }
                long v = Long.parseLong(digits);
                if (length >= 0 && length != v) {
                    throw new ScrapeFailedException(malformed("two different Content-Length values"));
                }
                length = v;
            }
            return length;
        }

        private static boolean isToken(String line, int end) {
            for (int i = 0; i < end; i++) {
                char c = line.charAt(i);
                if (c <= ' ' || c >= 127 || "()<>@,;:\\\"/[]?={}".indexOf(c) >= 0) return false;
            }
            return true;
        }
    }
}

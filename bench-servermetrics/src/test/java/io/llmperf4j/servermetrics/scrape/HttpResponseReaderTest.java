package io.llmperf4j.servermetrics.scrape;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The scrape's HTTP/1.x response reader on byte streams, each response also delivered in two reads split at every
 * position (and one byte a read), so no boundary of a line, a CR LF or a chunk is assumed to fall within one read.
 */
class HttpResponseReaderTest {

    private static final int LIMIT = 1024;

    @Test
    void contentLengthBody() throws Exception {
        String wire = "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: 5\r\n\r\nup 1\n";
        forEverySplit(wire, r -> {
            assertEquals(200, r.status());
            assertEquals("text/plain; version=0.0.4", r.contentType());
            assertBody("up 1\n", r);
            assertTrue(r.reusable());
        });
    }

    @Test
    void chunkedBodyWithExtensionsAndTrailers() throws Exception {
        String wire = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
                + "3;name=value\r\nup \r\nA\r\n1\nx 2\ny 3\n\r\n0\r\nX-Trailer: t\r\n\r\n";
        forEverySplit(wire, r -> {
            assertBody("up 1\nx 2\ny 3\n", r);
            assertTrue(r.reusable());
        });
    }

    @Test
    void bodyEndedByTheConnectionsClose() throws Exception {
        forEverySplit("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nup 1\nup 2\n", r -> {
            assertBody("up 1\nup 2\n", r);
            assertFalse(r.reusable(), "the body's end was the connection's");
        });
    }

    @Test
    void http10KeepsTheConnectionOnlyWhenAsked() throws Exception {
        forEverySplit("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", r -> assertFalse(r.reusable()));
        forEverySplit("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok",
                r -> assertTrue(r.reusable()));
        forEverySplit("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
                r -> assertFalse(r.reusable()));
    }

    @Test
    void interimAnswersAreSkippedAndBodilessStatusesReadNoBody() throws Exception {
        forEverySplit("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nup 7\n", r -> assertBody("up 7\n", r));
        forEverySplit("HTTP/1.1 204 No Content\r\n\r\n", r -> {
            assertEquals(204, r.status());
            assertBody("", r);
            assertTrue(r.reusable());
        });
    }

    @Test
    void redirectKeepsItsLocationAndFoldedHeadersAreJoined() throws Exception {
        forEverySplit("HTTP/1.1 302 Found\r\nLocation: /other\r\nX-Long: a\r\n  b\r\nContent-Length: 0\r\n\r\n", r -> {
            assertEquals(302, r.status());
            assertEquals("/other", r.location());
            assertNull(r.contentType());
        });
    }

    @Test
    void bareLineFeedsAreLinesToo() throws Exception {
        forEverySplit("HTTP/1.1 200 OK\nContent-Length: 3\n\nabc", r -> assertBody("abc", r));
    }

    @Test
    void aKeptConnectionCarriesTheNextResponse() throws Exception {
        String one = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none";
        String two = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\ntwo\r\n0\r\n\r\n";
        HttpInput in = input(bytes(one + two), 7);
        in.startResponse();
        assertBody("one", HttpResponseReader.read(in, LIMIT));
        in.startResponse();
        assertBody("two", HttpResponseReader.read(in, LIMIT));
        in.startResponse();
        assertThrows(ScrapeConnection.NoResponseException.class, () -> HttpResponseReader.read(in, LIMIT),
                "the server closed it before a byte of a third");
    }

    @Test
    void cutShortResponses() {
        for (String wire : new String[] {"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nup 1\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nu", "HTTP/1.1 200 OK\r\nContent-Le",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"}) {
            assertEquals(HttpInput.CUT_SHORT, failure(wire).getMessage(), wire);
        }
    }

    @Test
    void malformedResponses() {
        String[][] cases = {
                {"SPDY/3 200 OK\r\n\r\n", "not an HTTP/1.x status line"},
                {"HTTP/1.1 2x0 OK\r\n\r\n", "bad status code"},
                {"HTTP/1.1 2000 OK\r\n\r\n", "bad status code"},
                {"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "bad header line"},
                {"HTTP/1.1 200 OK\r\nBad Name: 1\r\n\r\n", "bad header line"},
                {"HTTP/1.1 200 OK\r\n folded first\r\n\r\n", "folded line without a header"},
                {"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "bad Content-Length"},
                {"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", "two different Content-Length values"},
                {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "bad chunk size"},
                {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", "chunk longer than its size"},
                {"HTTP/1.1 200 OK\r\nX: " + "v".repeat(9000) + "\r\n\r\n", "header line longer than 8192 bytes"},
                {"HTTP/1.1 200 OK\r\n" + "X-A: 1234567890123456789012345678901234567890\r\n".repeat(1500) + "\r\n",
                        "head longer than 65536 bytes"},
        };
        for (String[] c : cases) {
            assertEquals("malformed HTTP response (" + c[1] + ")", failure(c[0]).getMessage(), c[0].substring(0,
                    Math.min(60, c[0].length())));
        }
    }

    @Test
    void bodiesPastTheLimitAreRefusedAnnouncedOrChunked() {
        String tooLarge = "body exceeds the allowed maximum (" + LIMIT + " bytes)";
        assertEquals(tooLarge, failure("HTTP/1.1 200 OK\r\nContent-Length: 1025\r\n\r\n").getMessage(),
                "refused before a byte of the body is read");
        String chunk = "100\r\n" + "x".repeat(256) + "\r\n";
        assertEquals(tooLarge, failure("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk.repeat(5)
                + "0\r\n\r\n").getMessage());
        assertEquals(tooLarge, failure("HTTP/1.1 200 OK\r\n\r\n" + "y".repeat(1025)).getMessage());
    }

    @Test
    void noByteAtAllIsNoResponseAndAFailedReadAfterSomeIsAFailure() {
        assertThrows(ScrapeConnection.NoResponseException.class, () -> read(new byte[0], 1));
        HttpInput failing = new HttpInput(new InputStream() {
            private int n;

            @Override
            public int read() throws IOException {
                if (n++ < 5) return 'H';
                throw new IOException("reset");
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                b[off] = (byte) read();
                return 1;
            }
        }, () -> { }, 64);
        failing.startResponse();
        IOException e = assertThrows(IOException.class, () -> HttpResponseReader.read(failing, LIMIT));
        assertFalse(e instanceof ScrapeConnection.NoResponseException, "some of the response had come");
    }

    @Test
    void theDeadlineIsSetBeforeEveryRead() throws Exception {
        int[] prepared = {0};
        HttpInput in = new HttpInput(new SplitStream(bytes("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"), 4),
                () -> prepared[0]++, 64);
        in.startResponse();
        HttpResponseReader.read(in, LIMIT);
        assertEquals(10, prepared[0], "40 bytes in reads of 4");
    }

    private interface Check {
        void accept(MetricsResponse response) throws Exception;
    }

    private static void forEverySplit(String wire, Check check) throws Exception {
        byte[] bytes = bytes(wire);
        check.accept(read(bytes, bytes.length));
        check.accept(read(bytes, 1));
        for (int split = 1; split < bytes.length; split++) {
            check.accept(HttpResponseReader.read(started(new HttpInput(new TwoReads(bytes, split), () -> { }, 64)),
                    LIMIT));
        }
    }

    private static MetricsResponse read(byte[] bytes, int readSize) throws IOException, ScrapeFailedException {
        return HttpResponseReader.read(input(bytes, readSize), LIMIT);
    }

    private static HttpInput input(byte[] bytes, int readSize) {
        return started(new HttpInput(new SplitStream(bytes, readSize), () -> { }, 64));
    }

    private static HttpInput started(HttpInput in) {
        in.startResponse();
        return in;
    }

    private static ScrapeFailedException failure(String wire) {
        byte[] bytes = bytes(wire);
        ScrapeFailedException whole = assertThrows(ScrapeFailedException.class, () -> read(bytes, bytes.length));
        ScrapeFailedException bytewise = assertThrows(ScrapeFailedException.class, () -> read(bytes, 1));
        assertEquals(whole.getMessage(), bytewise.getMessage(), "the same failure however the bytes come");
        return whole;
    }

    private static void assertBody(String expected, MetricsResponse r) {
        assertArrayEquals(bytes(expected), r.body());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Gives its bytes at most {@code readSize} a read, then the end of the stream. */
    private static class SplitStream extends InputStream {
        private final byte[] bytes;
        private final int readSize;
        int position;

        SplitStream(byte[] bytes, int readSize) {
            this.bytes = bytes;
            this.readSize = readSize;
        }

        @Override
        public int read() {
            return position < bytes.length ? bytes[position++] & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (position == bytes.length) return -1;
            int n = Math.min(Math.min(len, chunk()), bytes.length - position);
            System.arraycopy(bytes, position, b, off, n);
            position += n;
            return n;
        }

        int chunk() {
            return readSize;
        }
    }

    /** Two reads: the bytes before {@code split}, then the rest. */
    private static final class TwoReads extends SplitStream {
        private final int split;

        TwoReads(byte[] bytes, int split) {
            super(bytes, bytes.length);
            this.split = split;
        }

        @Override
        int chunk() {
            return position < split ? split - position : Integer.MAX_VALUE;
        }
    }
}

package io.llmperf4j.servermetrics.scrape;

import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;

/**
 * One HTTP/1.1 connection to a metrics URL's origin, on a blocking socket read by the calling thread, kept open
 * between scrapes while the server allows it. Netty's {@link HttpResponseDecoder} (the engine's, already loaded in a
 * run) parses the responses, driven through an {@link EmbeddedChannel}: no event loop, no selector thread, and for
 * an http URL nothing of the JDK's TLS stack.
 */
final class ScrapeConnection implements Closeable {

    /** Status line and headers: generous, as a proxy in front of the server may add many headers. */
    private static final HttpDecoderConfig DECODER = new HttpDecoderConfig()
            .setMaxInitialLineLength(8 * 1024)
            .setMaxHeaderSize(64 * 1024)
            .setMaxChunkSize(64 * 1024);
    private static final int READ_BUFFER_BYTES = 16 * 1024;

    private final String origin;
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private ScrapeConnection(String origin, Socket socket) throws IOException {
        this.origin = origin;
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    /**
     * Connects to {@code url}'s origin (and, for https, completes the TLS handshake) before {@code deadlineNanos}.
     *
     * @param tls the run's TLS trust for an https URL, null for the JDK's default; unused for http
     */
    static ScrapeConnection open(URI url, long deadlineNanos, SSLContext tls)
            throws IOException, ScrapeFailedException {
        boolean https = url.getScheme().equalsIgnoreCase("https");
        String host = unbracketed(url.getHost());
        int port = url.getPort() >= 0 ? url.getPort() : https ? 443 : 80;
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), remainingMillis(deadlineNanos));
            if (https) {
                socket.setSoTimeout(remainingMillis(deadlineNanos));
                socket = TlsSockets.wrap(socket, host, port, tls);
            }
            return new ScrapeConnection(originOf(url), socket);
        } catch (IOException | ScrapeFailedException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** True when this connection can carry a request for {@code url}: same scheme, host and port. */
    boolean serves(URI url) {
        return origin.equals(originOf(url));
    }

    /**
     * Sends {@code requestHead} (a whole GET, blank line included) and reads its response, all before
     * {@code deadlineNanos}.
     *
     * @throws NoResponseException     when the connection ends or fails before a byte of the response came back
     *                                 (on a kept-alive connection: the server closed it meanwhile; try a new one)
     * @throws SocketTimeoutException  when the deadline passes
     * @throws ScrapeFailedException   when the response is malformed, cut short, or its body too large
     */
    MetricsResponse exchange(byte[] requestHead, long deadlineNanos, int maxBodyBytes)
            throws IOException, ScrapeFailedException {
        try {
            out.write(requestHead);
            out.flush();
        } catch (SocketTimeoutException e) {
            throw e;
        } catch (IOException e) {
            throw new NoResponseException(e);
        }
        EmbeddedChannel decoder = new EmbeddedChannel(new HttpResponseDecoder(DECODER));
        // heap buffers the collector frees (the decoder asks at each read): nothing from the engine's pooled arenas
        decoder.config().setAllocator(UnpooledByteBufAllocator.DEFAULT);
        ResponseReader reader = new ResponseReader(maxBodyBytes);
        try {
            byte[] buffer = new byte[READ_BUFFER_BYTES];
            boolean anyByte = false;
            while (!reader.complete()) {
                socket.setSoTimeout(remainingMillis(deadlineNanos));
                int n;
                try {
                    n = in.read(buffer);
                } catch (SocketTimeoutException e) {
                    throw e;
                } catch (IOException e) {
                    if (!anyByte) throw new NoResponseException(e);
                    throw e;
                }
                if (n < 0) {
                    if (!anyByte) throw new NoResponseException(null);
                    decoder.finish(); // the end of a body delimited by the connection's close, or a cut-short one
                    reader.take(decoder);
                    if (!reader.complete()) {
                        throw new ScrapeFailedException("connection closed before the whole response came");
                    }
                    reader.closedByServer();
                    break;
                }
                anyByte = true;
                decoder.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOf(buffer, n)));
                reader.take(decoder);
            }
        } catch (RuntimeException e) { // the decoder's own failures (DecoderException), rethrown by the channel
            throw new ScrapeFailedException("malformed HTTP response (" + e.getMessage() + ")");
        } finally {
            decoder.finishAndReleaseAll();
        }
        return reader.response();
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing left to do with it
        }
    }

    /** Milliseconds left before the deadline, at least 1 (0 would mean no timeout at all to a socket). */
    static int remainingMillis(long deadlineNanos) throws SocketTimeoutException {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) throw new SocketTimeoutException("deadline passed");
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(left)));
    }

    private static String originOf(URI url) {
        String scheme = url.getScheme().toLowerCase(Locale.ROOT);
        int port = url.getPort() >= 0 ? url.getPort() : scheme.equals("https") ? 443 : 80;
        return scheme + "://" + url.getHost().toLowerCase(Locale.ROOT) + ":" + port;
    }

    private static String unbracketed(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    /** The connection ended or failed before any of the response came back. */
    static final class NoResponseException extends IOException {
        NoResponseException(IOException cause) {
            super(cause == null ? "the server closed the connection without answering" : cause.getMessage(), cause);
        }
    }

    /** Turns the decoder's objects into one response: the head, then the body up to its last part. */
    private static final class ResponseReader {
        private final LimitedBody body;
        private HttpResponse head;
        private boolean complete;
        private boolean closedByServer;

        ResponseReader(int maxBodyBytes) {
            body = new LimitedBody(maxBodyBytes);
        }

        boolean complete() {
            return complete;
        }

        void closedByServer() {
            closedByServer = true;
        }

        void take(EmbeddedChannel decoder) throws ScrapeFailedException {
            for (Object o; (o = decoder.readInbound()) != null; ) {
                try {
                    take((HttpObject) o);
                } finally {
                    ReferenceCountUtil.release(o);
                }
            }
        }

        private void take(HttpObject o) throws ScrapeFailedException {
            if (complete) return; // anything after the response (there should be nothing) is dropped
            DecoderResult result = o.decoderResult();
            if (result.isFailure()) {
                Throwable cause = result.cause();
                throw new ScrapeFailedException(head != null && cause instanceof PrematureChannelClosureException
                        ? "connection closed before the whole response came"
                        : "malformed HTTP response (" + (cause == null ? "unreadable" : cause.getMessage()) + ")");
            }
            if (o instanceof HttpResponse h) {
                head = h;
                body.expect(HttpUtil.getContentLength(h, -1L));
            }
            if (o instanceof HttpContent c) {
                if (head == null) throw new ScrapeFailedException("malformed HTTP response (body without a head)");
                body.append(c.content());
                if (c instanceof LastHttpContent) {
                    // an interim 1xx answer (100 Continue) has no body and comes before the real one
                    if (head.status().code() >= 100 && head.status().code() < 200 && head.status().code() != 101) {
                        head = null;
                        return;
                    }
                    complete = true;
                }
            }
        }

        MetricsResponse response() {
            return new MetricsResponse(head.status().code(), head.headers().get(HttpHeaderNames.CONTENT_TYPE),
                    head.headers().get(HttpHeaderNames.LOCATION), body.bytes(),
                    HttpUtil.isKeepAlive(head) && !closedByServer);
        }
    }
}

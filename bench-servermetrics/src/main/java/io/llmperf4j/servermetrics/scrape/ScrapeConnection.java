package io.llmperf4j.servermetrics.scrape;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;

/**
 * One HTTP/1.1 connection to a metrics URL's origin, on a blocking socket read by the calling thread, kept open
 * between scrapes while the server allows it, its responses parsed by {@link HttpResponseReader}: no event loop, no
 * selector thread, no class of Netty's (see the reader for why), and for an http URL nothing of the JDK's TLS stack.
 */
final class ScrapeConnection implements Closeable {

    private static final int READ_BUFFER_BYTES = 16 * 1024;

    private final String origin;
    private final Socket socket;
    private final HttpInput in;
    private final OutputStream out;
    /** The current exchange's deadline, for each read's timeout. */
    private long deadlineNanos;

    private ScrapeConnection(String origin, Socket socket) throws IOException {
        this.origin = origin;
        this.socket = socket;
        this.in = new HttpInput(socket.getInputStream(),
                () -> socket.setSoTimeout(remainingMillis(deadlineNanos)), READ_BUFFER_BYTES);
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
        this.deadlineNanos = deadlineNanos;
        in.startResponse();
        return HttpResponseReader.read(in, maxBodyBytes);
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
}

package io.llmperf4j.servermetrics.scrape;

import java.io.IOException;
import java.net.Socket;
import java.security.NoSuchAlgorithmException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * TLS over a connected socket, for https metrics URLs only: the one class of the scrape that touches
 * {@code javax.net.ssl}, so a plain http scrape never loads the JDK's TLS stack (some 450 classes).
 */
final class TlsSockets {

    private TlsSockets() {
    }

    /**
     * Wraps {@code plain} (connected to {@code host}) in TLS and completes the handshake within the socket's read
     * timeout. The host name is verified against the certificate (as {@code java.net.http} does) unless
     * {@code context}'s trust manager accepts anything ({@link TlsContexts#trustingAnything}).
     *
     * @param context the run's trust ({@code --ca-cert}, {@code --insecure}), or null for the JDK's default
     * @throws ScrapeFailedException when the server's certificate is not trusted or the handshake fails otherwise
     */
    static Socket wrap(Socket plain, String host, int port, SSLContext context)
            throws IOException, ScrapeFailedException {
        SSLContext tls;
        try {
            tls = context != null ? context : SSLContext.getDefault();
        } catch (NoSuchAlgorithmException e) {
            throw new IOException("TLS is not available in this JVM", e);
        }
        SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket(plain, host, port, true);
        SSLParameters parameters = socket.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        socket.setSSLParameters(parameters);
        try {
            socket.startHandshake();
        } catch (SSLHandshakeException e) {
            socket.close();
            throw new ScrapeFailedException("TLS handshake failed (" + e.getMessage()
                    + "); pass the run's --ca-cert or --insecure");
        }
        return socket;
    }
}

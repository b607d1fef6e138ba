package io.llmperf4j.run;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;

/**
 * Whether a port meant for https answers a TLS ClientHello in plain text. The JDK's HTTP client reports such an
 * answer either as a plaintext record or, when the server's close is seen before its bytes, as an answer of "no
 * bytes"; a blocking handshake reads the bytes before the close, so it tells the two apart every time.
 */
final class PlainHttpProbe {

    private PlainHttpProbe() {
    }

    /** True when the server at host:port answered a ClientHello with bytes that are not a TLS record. */
    static boolean answersInPlainText(String host, int port, Duration wait) {
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, wait.toMillis()));
        try (Socket plain = new Socket()) {
            plain.connect(new InetSocketAddress(host, port), millis);
            plain.setSoTimeout(millis);
            // no trust is needed: a plain-text answer fails at the first record, before any certificate
            try (SSLSocket tls = (SSLSocket) SSLContext.getDefault().getSocketFactory()
                    .createSocket(plain, host, port, true)) {
                tls.startHandshake();
                return false;
            }
        } catch (SSLException e) {
            String words = String.valueOf(e.getMessage());
            return words.contains("plaintext connection") || words.contains("Unsupported or unrecognized SSL message");
        } catch (IOException | NoSuchAlgorithmException e) {
            return false;
        }
    }
}

package io.llmperf4j.servermetrics.scrape;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/** TLS trust for an https scrape, matching the run's {@code --ca-cert} and {@code --insecure}. */
public final class TlsContexts {

    private TlsContexts() {
    }

    /**
     * Trusts the CA certificates in a PEM file (and only those); host names are still verified.
     *
     * @throws IOException when the file cannot be read or holds no certificate
     */
    public static SSLContext trusting(Path pemFile) throws IOException {
        try (InputStream in = Files.newInputStream(pemFile)) {
            Collection<? extends Certificate> certs = CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (certs.isEmpty()) throw new IOException("no certificate in " + pemFile);
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int i = 0;
            for (Certificate c : certs) store.setCertificateEntry("ca-" + i++, c);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read CA certificates from " + pemFile + ": " + e.getMessage(), e);
        }
    }

    /**
     * Accepts any certificate and any host name ({@code --insecure}, self-signed test endpoints only). An
     * {@link X509ExtendedTrustManager} is where JSSE checks the host name, so one that accepts everything skips that
     * check too, for this client only.
     */
    public static SSLContext trustingAnything() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new AnyCertificate()}, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("TLS is not available in this JVM", e);
        }
    }

    private static final class AnyCertificate extends X509ExtendedTrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}

package io.llmperf4j.servermetrics.scrape;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** https scrapes against a real HttpsServer whose self-signed certificate keytool makes for the test. */
class TlsScrapeTest {

    private static final String PASSWORD = "changeit";

    @TempDir
    Path dir;

    /** A self-signed certificate for {@code san}; returns the PKCS12 key store, its PEM export beside it. */
    private Path certificate(String name, String san) throws Exception {
        Path store = dir.resolve(name + ".p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(keytool, "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=" + name, "-ext", "san=" + san, "-storetype", "PKCS12", "-keystore", store.toString(),
                "-storepass", PASSWORD, "-keypass", PASSWORD);
        run(keytool, "-exportcert", "-rfc", "-alias", name, "-keystore", store.toString(), "-storepass", PASSWORD,
                "-file", dir.resolve(name + ".pem").toString());
        return store;
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
    }

    private static HttpsServer serve(Path keyStore) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, PASSWORD.toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf.getKeyManagers(), null, null);
        HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(context));
        server.createContext("/metrics", exchange -> {
            byte[] body = "up 1\n".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
            exchange.sendResponseHeaders(200, body.length);
            try (exchange) {
                exchange.getResponseBody().write(body);
            }
        });
        server.start();
        return server;
    }

    private static ProbeResult probe(HttpsServer server, SSLContext context) {
        URI endpoint = URI.create("https://127.0.0.1:" + server.getAddress().getPort() + "/v1");
        ServerMetricsConfig c = ServerMetricsConfig.forEndpoint(endpoint, null).withTimeout(Duration.ofSeconds(20));
        return MetricsProbe.probe(context == null ? c : c.withSslContext(context));
    }

    @Test
    void verifiedByDefaultTrustingTheRunsCaOrAnythingWhenAsked() throws Exception {
        HttpsServer forIp = serve(certificate("ip", "ip:127.0.0.1"));
        HttpsServer forOtherName = serve(certificate("other", "dns:metrics.invalid"));
        try {
            ProbeResult untrusted = probe(forIp, null);
            assertTrue(untrusted.detail().startsWith("TLS handshake failed"), untrusted.detail());
            assertTrue(untrusted.detail().endsWith("pass the run's --ca-cert or --insecure"), untrusted.detail());

            assertTrue(probe(forIp, TlsContexts.trusting(dir.resolve("ip.pem"))).ok(), "the run's CA is trusted");
            ProbeResult wrongHost = probe(forOtherName, TlsContexts.trusting(dir.resolve("other.pem")));
            assertTrue(!wrongHost.ok() && wrongHost.detail().startsWith("TLS handshake failed"),
                    "a trusted CA still needs the right host name: " + wrongHost.detail());

            for (HttpsServer s : List.of(forIp, forOtherName)) {
                ProbeResult anything = probe(s, TlsContexts.trustingAnything());
                assertTrue(anything.ok(), anything.detail());
            }
        } finally {
            forIp.stop(0);
            forOtherName.stop(0);
        }
    }

    @Test
    void pemWithoutCertificatesIsAClearError() throws IOException {
        Path empty = Files.writeString(dir.resolve("empty.pem"), "");
        IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class,
                () -> TlsContexts.trusting(empty));
        assertEquals("no certificate in " + empty, e.getMessage());
    }
}

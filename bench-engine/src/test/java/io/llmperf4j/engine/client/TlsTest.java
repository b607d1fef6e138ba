package io.llmperf4j.engine.client;

import io.llmperf4j.engine.testserver.FaultServer;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestPhases;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * https against local servers with throw-away certificates made by keytool: verified by default, hostname checked.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsTest {

    private static final char[] PASSWORD = "changeit".toCharArray();

    @TempDir
    static Path dir;
    private static FaultServer matching;   // certificate for 127.0.0.1
    private static FaultServer mismatched; // certificate for example.com only

    @BeforeAll
    static void startServers() throws Exception {
        matching = FaultServer.start(serverContext(certificate("good", "ip:127.0.0.1,dns:localhost"))
                .getServerSocketFactory());
        mismatched = FaultServer.start(serverContext(certificate("wrong", "dns:example.com"))
                .getServerSocketFactory());
    }

    @AfterAll
    static void stopServers() throws IOException {
        matching.close();
        mismatched.close();
    }

    private static RequestRecord send(FaultServer server, UnaryOperator<ClientConfig.Builder> options) {
        ClientConfig config = options.apply(ClientConfig.builder(
                EndpointUrls.chatCompletions("https://127.0.0.1:" + server.port() + "/v1"), "m")
                .apiKey(Secret.of("sk-tls-SECRET-1234"))).build();
        try (NettyLlmClient client = new NettyLlmClient(config)) {
            return client.send(new RequestSpec(0, "ok", 1, 1)).completion().join();
        }
    }

    @Test
    void trustedCertificateWithMatchingHostSucceeds() {
        ClientConfig config = ClientConfig.builder(
                        EndpointUrls.chatCompletions("https://127.0.0.1:" + matching.port() + "/v1"), "m")
                .trustedCertificatesPem(dir.resolve("good.pem")).build();
        int before = matching.acceptedConnections();
        try (NettyLlmClient client = new NettyLlmClient(config)) {
            boolean first = true;
            for (String scenario : List.of("ok", "ok-bytewise", "ok")) {
                RequestRecord r = client.send(new RequestSpec(0, scenario, 1, 1)).completion().join();
                assertNull(r.failure(), () -> String.valueOf(r.failure()));
                assertEquals("Hello world!", r.generatedText());
                RequestPhases p = r.phases();
                if (first) { // the handshake is part of the connect, which is part of the wait for a connection
                    assertTrue(p.tlsNanos() >= 0 && p.tlsNanos() <= r.connectNanos(), r::toString);
                    assertTrue(r.connectNanos() <= p.connectionReadyNanos(), r::toString);
                } else {
                    assertEquals(RequestRecord.NEVER, p.tlsNanos(), "no handshake on a reused connection");
                    assertEquals(RequestRecord.NEVER, r.connectNanos());
                }
                assertTrue(p.connectionReadyNanos() <= p.requestWrittenNanos()
                        && p.requestWrittenNanos() <= p.responseHeadersNanos()
                        && p.responseHeadersNanos() <= r.ttftNanos(), r::toString);
                first = false;
            }
        }
        assertEquals(1, matching.acceptedConnections() - before, "keep-alive works over TLS too");
    }

    @Test
    void selfSignedCertificateIsRejectedByDefault() {
        RequestRecord r = send(matching, b -> b);
        assertEquals(FailureKind.CONNECT_FAILED, r.failure().kind());
        assertTrue(r.failure().message().startsWith("TLS handshake failed: "), r.failure().message());
        assertTrue(r.failure().message().endsWith(" (127.0.0.1:" + matching.port() + ")"), r.failure().message());
    }

    @Test
    void insecureTlsAcceptsASelfSignedCertificate() {
        int before = matching.acceptedConnections();
        ClientConfig config = ClientConfig.builder(
                        EndpointUrls.chatCompletions("https://127.0.0.1:" + matching.port() + "/v1"), "m")
                .insecureTls(true).build();
        try (NettyLlmClient client = new NettyLlmClient(config)) {
            for (int i = 0; i < 2; i++) {
                RequestRecord r = client.send(new RequestSpec(0, "ok", 1, 1)).completion().join();
                assertNull(r.failure(), () -> String.valueOf(r.failure()));
                assertEquals("Hello world!", r.generatedText());
            }
        }
        assertEquals(1, matching.acceptedConnections() - before);
    }

    @Test
    void insecureTlsSkipsHostnameVerification() {
        RequestRecord r = send(mismatched, b -> b.insecureTls(true)); // a certificate for example.com only
        assertNull(r.failure(), () -> String.valueOf(r.failure()));
        assertEquals("Hello world!", r.generatedText());
    }

    @Test
    void hostnameIsVerified() {
        RequestRecord r = send(mismatched, b -> b.trustedCertificatesPem(dir.resolve("wrong.pem")));
        assertEquals(FailureKind.CONNECT_FAILED, r.failure().kind());
        assertTrue(r.failure().message().startsWith("TLS handshake failed: "), r.failure().message());
        assertTrue(r.failure().message().contains("127.0.0.1"), r.failure().message());
    }

    @Test
    void unreadableCertificateFileIsAConfigurationError() {
        ClientConfig config = ClientConfig.builder(EndpointUrls.chatCompletions("https://127.0.0.1:1/v1"), "m")
                .trustedCertificatesPem(dir.resolve("missing.pem")).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new NettyLlmClient(config).close());
        assertTrue(e.getMessage().startsWith("cannot set up TLS with the certificates in "), e.getMessage());
    }

    /** Makes {@code name}.p12 and {@code name}.pem in the temp dir with keytool; returns the key store. */
    private static Path certificate(String name, String subjectAltNames) throws Exception {
        Path store = dir.resolve(name + ".p12");
        keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=" + name, "-ext", "SAN=" + subjectAltNames, "-validity", "2",
                "-keystore", store.toString(), "-storetype", "PKCS12",
                "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD));
        keytool("-exportcert", "-rfc", "-alias", "server", "-file", dir.resolve(name + ".pem").toString(),
                "-keystore", store.toString(), "-storepass", new String(PASSWORD));
        return store;
    }

    private static void keytool(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("keytool failed: " + output);
        }
    }

    private static SSLContext serverContext(Path store) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, PASSWORD);
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, PASSWORD);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), null, null);
        return ctx;
    }
}

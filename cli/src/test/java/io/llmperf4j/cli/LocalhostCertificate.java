package io.llmperf4j.cli;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed server certificate for 127.0.0.1 and localhost, made with the JDK's keytool once per test JVM:
 * keytool is a JVM of its own to start, and the TLS tests need only some certificate of localhost, not each its own.
 * Its files live in a temporary folder removed when the JVM exits.
 */
final class LocalhostCertificate {
    private static final char[] PASSWORD = "changeit".toCharArray();
    private static Path folder;
    private static Path keystore;
    private static Path pem;

    private LocalhostCertificate() {
    }

    /** A TLS context that serves the certificate. */
    static SSLContext serverContext() throws Exception {
        KeyStore store = load();
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, PASSWORD);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, null);
        return context;
    }

    /** The certificate as a PEM file, what a user passes to --ca-cert. */
    static synchronized Path pem() throws Exception {
        if (pem == null) {
            Path file = folder().resolve("server.pem");
            String base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                    .encodeToString(load().getCertificate("server").getEncoded());
            Files.writeString(file, "-----BEGIN CERTIFICATE-----\n" + base64 + "\n-----END CERTIFICATE-----\n");
            file.toFile().deleteOnExit();
            pem = file;
        }
        return pem;
    }

    private static KeyStore load() throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore())) {
            store.load(in, PASSWORD);
        }
        return store;
    }

    private static synchronized Path keystore() throws Exception {
        if (keystore == null) {
            Path file = folder().resolve("server.p12");
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool")
                            .toString(), "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1",
                    "-validity", "2", "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-storetype",
                    "PKCS12", "-keystore", file.toString(), "-storepass", "changeit", "-keypass", "changeit"));
            Process keytool = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
                throw new IllegalStateException("keytool failed: " + output);
            }
            file.toFile().deleteOnExit();
            keystore = file;
        }
        return keystore;
    }

    private static synchronized Path folder() throws Exception {
        if (folder == null) {
            folder = Files.createTempDirectory("llmperf4j-tls");
            folder.toFile().deleteOnExit(); // registered first: deleted last, after its files
        }
        return folder;
    }
}

package io.llmperf4j.distributed;

import io.llmperf4j.engine.client.ClientConfig;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a worker builds from the coordinator's client description. */
class ClientSpecTest {
    private static final String PEM = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ\n-----END CERTIFICATE-----\n";

    private static ClientSpec spec(String pem) {
        return new ClientSpec(URI.create("https://10.0.0.5:8443/v1/chat/completions"), "openai", true, "m", Map.of(),
                true, 4, 60_000, null, 10_000, Map.of("X-Team", "a"), false, pem, null);
    }

    @Test
    void theCoordinatorsCaCertificatesReachTheWorkersClientAsAFileWithTheSameText() throws Exception {
        ClientSpec received = Wire.read(Wire.write(spec(PEM)), ClientSpec.class); // as it crosses the cluster
        ClientConfig config = received.clientConfig("worker-key");
        Path file = config.trustedCertificatesPem();
        assertEquals(PEM, Files.readString(file));
        assertEquals(file, received.clientConfig("worker-key").trustedCertificatesPem(), "one file per content");
        assertEquals(file, received.withMaxConnections(2).clientConfig("k").trustedCertificatesPem());
    }

    @Test
    void withoutCaCertificatesTheJdkTrustStoreIsUsed() {
        assertNull(Wire.read(Wire.write(spec(null)), ClientSpec.class).clientConfig("k").trustedCertificatesPem());
    }

    /** --cluster --llm-api anthropic --no-stream: the worker's adapter must not stream (it once ignored the setting). */
    @Test
    void everyDistributedApiKeepsTheStreamSettingAcrossTheCluster() {
        for (String api : new String[] {"openai", "openai-completions", "anthropic"}) {
            for (boolean stream : new boolean[] {true, false}) {
                ClientSpec sent = new ClientSpec(URI.create("http://127.0.0.1:8000/v1/x"), api, stream, "m",
                        Map.of(), true, 1, 60_000, null, 10_000, Map.of(), false, null, null);
                ClientSpec received = Wire.read(Wire.write(sent), ClientSpec.class);
                assertEquals(api, received.api().name());
                assertEquals(stream, received.api().streaming(), api + " stream=" + stream);
            }
        }
    }

    @Test
    void embeddingsAreNotDistributed() {
        assertFalse(ClientSpec.supports("embeddings"));
        assertTrue(ClientSpec.supports("anthropic"));
        ClientSpec embeddings = new ClientSpec(URI.create("http://127.0.0.1:8000/v1/embeddings"), "embeddings", false,
                "m", Map.of(), false, 1, 60_000, null, 10_000, Map.of(), false, null, null);
        assertThrows(IllegalArgumentException.class, embeddings::api);
    }
}

package io.llmperf4j.engine.client;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClientConfigTest {

    private static final URI ENDPOINT = URI.create("http://127.0.0.1:8000/v1/chat/completions");

    @Test
    void defaults() {
        ClientConfig c = ClientConfig.builder(ENDPOINT, "m").build();
        assertTrue(c.includeUsage());
        assertEquals(16 * 1024 * 1024, c.maxEventBytes());
        assertEquals(Duration.ofSeconds(180), c.idleTimeout());
        assertNull(c.requestTimeout(), "no request timeout unless asked for");
        assertEquals(Duration.ofSeconds(30), c.connectTimeout());
        assertFalse(c.insecureTls(), "certificates are verified unless asked otherwise");
        assertTrue(c.apiKey().isEmpty());
        assertEquals("127.0.0.1:8000", c.hostAndPort());
        assertEquals(443, ClientConfig.builder(URI.create("https://h/v1/chat/completions"), "m").build().port());
        assertEquals(80, ClientConfig.builder(URI.create("http://h/v1/chat/completions"), "m").build().port());
    }

    @Test
    void secretsNeverPrint() {
        Secret key = Secret.of("sk-live-1234567890");
        assertEquals("Secret[redacted]", key.toString());
        assertEquals("Secret[empty]", Secret.of("").toString());
        assertEquals("sk-live-1234567890", key.reveal());
        assertEquals(Secret.of("sk-live-1234567890"), key);
        assertNotEquals(Secret.of("other"), key);
        ClientConfig c = ClientConfig.builder(ENDPOINT, "m").apiKey(key)
                .extraHeaders(Map.of("api-key", "azure-secret-value")).build();
        assertFalse(c.toString().contains("sk-live"), c.toString());
        assertFalse(c.toString().contains("azure-secret-value"), c.toString());
        assertTrue(c.toString().contains("extraHeaders=[api-key]"), c.toString());
    }

    @Test
    void requestTimeoutAndInsecureTlsAreSetAndShown() {
        ClientConfig c = ClientConfig.builder(URI.create("https://h/v1/chat/completions"), "m")
                .requestTimeout(Duration.ofMinutes(5)).insecureTls(true).build();
        assertEquals(Duration.ofMinutes(5), c.requestTimeout());
        assertTrue(c.insecureTls());
        assertTrue(c.toString().contains("requestTimeout=PT5M"), c.toString());
        assertTrue(c.toString().contains("insecureTls=true"), c.toString());
        assertNull(ClientConfig.builder(ENDPOINT, "m").requestTimeout(Duration.ofSeconds(1)).requestTimeout(null)
                .build().requestTimeout(), "null takes the limit away again");
    }

    @Test
    void insecureTlsAndTrustedCertificatesContradictEachOther() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClientConfig.builder(
                URI.create("https://h/v1/chat/completions"), "m").insecureTls(true)
                .trustedCertificatesPem(java.nio.file.Path.of("ca.pem")).build());
        assertEquals("insecureTls and trustedCertificatesPem (ca.pem) contradict each other: trust any certificate,"
                + " or only those in the file", e.getMessage());
    }

    @Test
    void paramsAreCopiedInOrderAndNullValuesKept() {
        Map<String, Object> params = new java.util.LinkedHashMap<>();
        params.put("b", 1);
        params.put("a", null);
        ClientConfig c = ClientConfig.builder(ENDPOINT, "m").additionalSamplingParams(params).build();
        params.put("c", 3);
        assertEquals("{b=1, a=null}", c.additionalSamplingParams().toString());
        assertThrows(UnsupportedOperationException.class, () -> c.additionalSamplingParams().put("x", 1));
    }

    @Test
    void validationMessagesNameTheValue() {
        assertEquals("maxConnections (0) must be >= 1", assertThrows(IllegalArgumentException.class,
                () -> ClientConfig.builder(ENDPOINT, "m").maxConnections(0).build()).getMessage());
        assertEquals("idleTimeout (PT0S) must be > 0", assertThrows(IllegalArgumentException.class,
                () -> ClientConfig.builder(ENDPOINT, "m").idleTimeout(Duration.ZERO).build()).getMessage());
        assertEquals("connectTimeout (PT0S) must be > 0", assertThrows(IllegalArgumentException.class,
                () -> ClientConfig.builder(ENDPOINT, "m").connectTimeout(Duration.ZERO).build()).getMessage());
        assertEquals("connectTimeout (PT-1S) must be > 0", assertThrows(IllegalArgumentException.class,
                () -> ClientConfig.builder(ENDPOINT, "m").connectTimeout(Duration.ofSeconds(-1)).build()).getMessage());
        assertEquals("requestTimeout (PT0S) must be > 0", assertThrows(IllegalArgumentException.class,
                () -> ClientConfig.builder(ENDPOINT, "m").requestTimeout(Duration.ZERO).build()).getMessage());
        assertEquals("maxEventBytes (0) must be >= 1", assertThrows(IllegalArgumentException.class,
                () -> ClientConfig.builder(ENDPOINT, "m").maxEventBytes(0).build()).getMessage());
        assertEquals("endpoint scheme 'ws' is not supported; use http or https",
                assertThrows(IllegalArgumentException.class,
                        () -> ClientConfig.builder(URI.create("ws://h/x"), "m").build()).getMessage());
        Map<String, String> badHeader = new HashMap<>();
        badHeader.put("X-Bad", "a\r\nInjected: 1");
        assertEquals("value of header 'X-Bad' must be non-null without CR or LF",
                assertThrows(IllegalArgumentException.class,
                        () -> ClientConfig.builder(ENDPOINT, "m").extraHeaders(badHeader).build()).getMessage());
        assertEquals("header name 'Bad Name' is not a valid HTTP token", assertThrows(IllegalArgumentException.class,
                () -> ClientConfig.builder(ENDPOINT, "m").extraHeaders(Map.of("Bad Name", "v")).build()).getMessage());
    }
}

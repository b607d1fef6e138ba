package io.llmperf4j.run;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.client.Secret;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pre-run request against real servers on 127.0.0.1: the simulator (a wrong key, a wrong model, a base without
 * /v1), a plain HTTP server that is no LLM API, one that is overloaded, and an https server whose self-signed
 * certificate (made here with keytool) this machine does not trust.
 */
class PreflightTest {
    private static final LlmApi CHAT = ApiRegistry.get("openai").adapter(true, null);
    private static final String KEY_VARIABLE = "OPENAI_API_KEY";

    private static ClientConfig config(String base, String model, String key) {
        return ClientConfig.builder(CHAT.endpoint(base), model).apiKey(Secret.of(key)).maxConnections(1)
                .connectTimeout(Duration.ofSeconds(5)).idleTimeout(Duration.ofSeconds(10)).build();
    }

    private static String refusal(String base, String model, String key) {
        return assertThrows(RunFailedException.class,
                () -> Preflight.checkRequest(config(base, model, key), CHAT, key, KEY_VARIABLE, null,
                        System.err)).getMessage();
    }

    @Test
    void aRightKeyAndModelPassAndSendExactlyOneRequestOfOneToken() {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder().apiKey("right-key")
                .timeToFirstToken(Duration.ofMillis(1)).build())) {
            assertDoesNotThrow(() -> Preflight.checkRequest(config(server.baseUrl(), "m", "right-key"), CHAT,
                    "right-key", KEY_VARIABLE, null, System.err));
            assertEquals(1, server.faultCounts().total(), "one request");
        }
    }

    @Test
    void aWrongKeyIsRefusedWithTheServersMessageAndWithoutTheKey() {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder().apiKey("right-key").build())) {
            String message = refusal(server.baseUrl(), "m", "sk-wrong-key-0123456789abcdef");
            assertTrue(message.startsWith("the server refused the pre-run request (one request of one token) with "
                    + "HTTP 401: Incorrect API key provided"), message);
            assertTrue(message.endsWith("; check the API key in OPENAI_API_KEY"), message);
            assertFalse(message.contains("sk-wrong-key"), message);
        }
    }

    @Test
    void aWrongModelIsA404NamingTheModel() {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder().modelIds("served-model")
                .acceptAnyModel(false).build())) {
            String message = refusal(server.baseUrl(), "other-model", "k");
            assertTrue(message.contains("with HTTP 404: "), message);
            assertTrue(message.contains("other-model"), "the server's message names the model: " + message);
            assertTrue(message.contains("check --model 'other-model'"), message);
            // the simulator's /v1/models, asked once with the run's key
            assertTrue(message.contains("does not exist; the server serves: served-model; check --model"), message);
        }
    }

    @Test
    void aModelIdWithDotsInA400IsStillReadAsAWrongModel() {
        URI endpoint = URI.create("http://127.0.0.1:8000/v1/chat/completions");
        for (String said : new String[]{"The model 'meta-llama/Llama-3.1-8B' does not exist",
                "{\"error\":{\"code\":400,\"message\":\"model not found\"}}",
                "Invalid model name passed in model=gpt-4.1", "{\"code\":\"model_not_found\"}"}) {
            assertTrue(Preflight.wrongModel(new Failure(FailureKind.HTTP_STATUS, 400, said), endpoint), said);
            assertTrue(Preflight.wrongModel(new Failure(FailureKind.HTTP_STATUS, 422, said), endpoint), said);
        }
        assertFalse(Preflight.wrongModel(new Failure(FailureKind.HTTP_STATUS, 400, "max_tokens must be at least 1"),
                endpoint));
        assertFalse(Preflight.wrongModel(new Failure(FailureKind.HTTP_STATUS, 401, "The model `x` does not exist"),
                endpoint), "a wrong key is not asked about");
        assertTrue(Preflight.wrongModel(new Failure(FailureKind.HTTP_STATUS, 404, "Not Found"), endpoint));
        assertFalse(Preflight.wrongModel(new Failure(FailureKind.HTTP_STATUS, 404, "Not Found"),
                URI.create("http://127.0.0.1:8000/v1/completions/chat/completions")), "its hint names the fix");
    }

    @Test
    void theServedListIsCutAfterFiveAndAnAnswerThatIsNoListIsSaid() {
        assertEquals("a, b, c, d, e", ServedModels.list(java.util.List.of("a", "b", "c", "d", "e")));
        assertEquals("a, b, c, d, e and 1 more", ServedModels.list(java.util.List.of("a", "b", "c", "d", "e", "f")));
        assertEquals(java.util.List.of("x"), ServedModels.ids("{\"data\":[{\"id\":\"x\"}]}"));
        assertEquals(null, ServedModels.ids("<html>Not Found</html>"));
        assertEquals(null, ServedModels.ids("{\"models\":[]}"));
    }

    @Test
    void aBaseWithoutV1IsA404SayingWhereTheRequestWent() {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder().build())) {
            String base = server.baseUrl().replaceAll("/v1/?$", "");
            String message = refusal(base, "m", "k");
            assertTrue(message.contains("with HTTP 404"), message);
            assertTrue(message.contains("ends in /v1 (the request went to " + base + "/chat/completions)"), message);
        }
    }

    @Test
    void aServerThatIsNoLlmApiIsA501WithItsOwnWords() throws Exception {
        HttpServer http = server(501, "text/html",
                "<html><body><h1>Error response</h1><p>Error code: 501</p><p>Message: Unsupported method ('POST')."
                        + "</p></body></html>", new AtomicInteger());
        try {
            String message = refusal("http://127.0.0.1:" + http.getAddress().getPort() + "/v1", "m", "k");
            // the page's words, not its markup
            assertTrue(message.contains("with HTTP 501: Error response Error code: 501 Message: Unsupported method "
                    + "('POST'); "), message);
            assertTrue(message.contains("does not serve this API"), message);
        } finally {
            http.stop(0);
        }
    }

    @Test
    void anOverloadedServerIsLeftForTheRunToMeasure() throws Exception {
        AtomicInteger requests = new AtomicInteger();
        for (int status : new int[] {429, 503}) {
            HttpServer http = server(status, "application/json",
                    "{\"error\": {\"message\": \"busy\", \"type\": \"overloaded\"}}", requests);
            try {
                assertDoesNotThrow(() -> Preflight.checkRequest(
                        config("http://127.0.0.1:" + http.getAddress().getPort() + "/v1", "m", "k"), CHAT, "k",
                        KEY_VARIABLE, null, System.err));
            } finally {
                http.stop(0);
            }
        }
        assertEquals(2, requests.get(), "one request each, never retried");
    }

    @Test
    void anUntrustedCertificateIsAConfigurationError(@TempDir Path dir) throws Exception {
        Path keystore = dir.resolve("server.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", "changeit", "-keypass", "changeit")
                .redirectErrorStream(true).start();
        String keytoolOutput = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(keytool.waitFor(60, TimeUnit.SECONDS) && keytool.exitValue() == 0, keytoolOutput);

        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, "changeit".toCharArray());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(keys.getKeyManagers(), null, null);
        AtomicInteger requests = new AtomicInteger();
        HttpsServer https = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        https.setHttpsConfigurator(new HttpsConfigurator(tls));
        https.createContext("/", exchange -> {
            requests.incrementAndGet();
            exchange.sendResponseHeaders(500, -1);
            exchange.close();
        });
        https.start();
        try {
            String base = "https://127.0.0.1:" + https.getAddress().getPort() + "/v1";
            String message = refusal(base, "m", "k");
            assertTrue(message.startsWith("the TLS connection to 127.0.0.1:" + https.getAddress().getPort()
                    + " failed before the run: TLS handshake failed"), message);
            assertTrue(message.contains("pass that CA with --ca-cert FILE"), message);
            assertEquals(0, requests.get(), "nothing reached the server");

            // trusting that certificate (--ca-cert) lets the request through: the server's 500 is left to the run
            Path pem = dir.resolve("server.pem");
            Process export = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                    "-exportcert", "-rfc", "-alias", "server", "-keystore", keystore.toString(), "-storetype",
                    "PKCS12", "-storepass", "changeit", "-file", pem.toString()).redirectErrorStream(true).start();
            export.getInputStream().readAllBytes();
            assertTrue(export.waitFor(60, TimeUnit.SECONDS) && export.exitValue() == 0);
            ClientConfig trusting = ClientConfig.builder(CHAT.endpoint(base), "m").apiKey(Secret.of("k"))
                    .maxConnections(1).trustedCertificatesPem(pem).build();
            assertDoesNotThrow(() -> Preflight.checkRequest(trusting, CHAT, "k", KEY_VARIABLE, null,
                    System.err));
            assertEquals(1, requests.get());
        } finally {
            https.stop(0);
        }
    }

    @Test
    void theCheckWaitsTheSmallestOfTheRunsTimeoutAndTheClientsLimits() {
        ClientConfig client = ClientConfig.builder(CHAT.endpoint("http://127.0.0.1:1/v1"), "m")
                .connectTimeout(Duration.ofSeconds(30)).idleTimeout(Duration.ofSeconds(180)).build();
        assertEquals(new Preflight.Wait(Duration.ofSeconds(5), "--timeout"),
                Preflight.answerWait(client, Duration.ofSeconds(5)));
        assertEquals(new Preflight.Wait(Duration.ofSeconds(60), "--connect-timeout + 30 s"),
                Preflight.answerWait(client, Duration.ofSeconds(90)));
        ClientConfig shortIdle = ClientConfig.builder(CHAT.endpoint("http://127.0.0.1:1/v1"), "m")
                .idleTimeout(Duration.ofSeconds(20)).build();
        assertEquals(new Preflight.Wait(Duration.ofSeconds(20), "--idle-timeout"),
                Preflight.answerWait(shortIdle, Duration.ofSeconds(90)));
    }

    @Test
    void aServerThatNeverAnswersGetsAWaitingLineThenAGiveUpLineAndTheRunGoesOn() throws Exception {
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 5, java.net.InetAddress.getLoopbackAddress())) {
            java.util.List<java.net.Socket> held = new java.util.concurrent.CopyOnWriteArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) held.add(silent.accept());
                } catch (java.io.IOException closed) {
                    // done
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            String endpoint = "http://127.0.0.1:" + silent.getLocalPort() + "/v1/chat/completions";
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            java.io.PrintStream err = new java.io.PrintStream(bytes, true, StandardCharsets.UTF_8);
            assertDoesNotThrow(() -> Preflight.checkRequest(config("http://127.0.0.1:" + silent.getLocalPort()
                    + "/v1", "m", "k"), CHAT, "k", KEY_VARIABLE, Duration.ofSeconds(2), err, Duration.ofMillis(100)));
            java.util.List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
            assertEquals(2, lines.size(), lines::toString);
            assertEquals("llmperf4j: pre-run check: no answer from " + endpoint + " after 0.1 s; waiting up to 2 s "
                    + "(--timeout)", lines.get(0));
            assertTrue(lines.get(1).startsWith("llmperf4j: pre-run check: no answer from " + endpoint + " in 2 s "
                    + "(--timeout); starting the run anyway"), lines.get(1));
            for (java.net.Socket socket : held) socket.close();
        }
    }

    @Test
    void theChecksParamsAreTheRunsWithoutMaxTokens() {
        java.util.Map<String, Object> params = new java.util.LinkedHashMap<>();
        params.put("temperature", 0.5);
        params.put("max_tokens", 7);
        params.put("top_p", 0.9);
        assertEquals(java.util.Map.of("temperature", 0.5, "top_p", 0.9), Preflight.checkParams(params));
        assertEquals(7, params.get("max_tokens"), "the run's own map is untouched");
    }

    /** A trusted certificate for another name: the hint is the host name, not another CA (QA's --ca-cert case). */
    @Test
    void aCertificateForAnotherHostNameGetsTheHostNameHint() {
        URI endpoint = URI.create("https://127.0.0.1:8443/v1/chat/completions");
        RequestRecord record = new RequestRecord(0, "id", null, 0L, RequestRecord.NEVER, RequestRecord.NEVER,
                RequestRecord.NEVER, 0, null, "", 0, 1, -1, null, null, null, new Failure(FailureKind.CONNECT_FAILED,
                -1, "TLS handshake failed: No subject alternative names matching IP address 127.0.0.1 found"));
        String problem = Preflight.configurationProblem(record, endpoint, "m", "k", KEY_VARIABLE);
        assertTrue(problem.contains("the server's certificate does not name 127.0.0.1: use a host name the "
                + "certificate lists in the base URL"), problem);
        assertFalse(problem.contains("--ca-cert"), problem);
    }

    @Test
    void theMessageComesFromTheErrorBodyAndKeysAreRedacted() {
        URI endpoint = URI.create("http://127.0.0.1:1/v1/chat/completions");
        String body = "{\"error\": {\"message\": \"Incorrect API key provided: my-secret-key. You can find your "
                + "API key at https://example.invalid.\", \"type\": \"invalid_request_error\"}}";
        RequestRecord record = new RequestRecord(0, "id", null, 0L, RequestRecord.NEVER, RequestRecord.NEVER,
                RequestRecord.NEVER, 0, null, "", 0, 1, -1, null, null, null,
                new Failure(FailureKind.HTTP_STATUS, 401, body));
        String problem = Preflight.configurationProblem(record, endpoint, "m", "my-secret-key", KEY_VARIABLE);
        assertTrue(problem.contains("HTTP 401: Incorrect API key provided: [redacted]. You can find"), problem);
        assertFalse(problem.contains("my-secret-key"), problem);
    }

    /**
     * QA (faults): the pre-run check redacted its key with a copy of its own, the whole key only; it asks the engine's
     * rule now, so a server's echo of part of the key (here without its first 3 characters) is redacted too.
     */
    @Test
    void aPartOfTheKeyInTheRefusalIsRedacted() {
        URI endpoint = URI.create("http://127.0.0.1:1/v1/chat/completions");
        String body = "{\"error\": {\"message\": \"Incorrect API key provided: secret-ABC123XYZ789.\"}}";
        RequestRecord record = new RequestRecord(0, "id", null, 0L, RequestRecord.NEVER, RequestRecord.NEVER,
                RequestRecord.NEVER, 0, null, "", 0, 1, -1, null, null, null,
                new Failure(FailureKind.HTTP_STATUS, 401, body));
        String problem = Preflight.configurationProblem(record, endpoint, "m", "sk-secret-ABC123XYZ789", KEY_VARIABLE);
        assertTrue(problem.contains("HTTP 401: Incorrect API key provided: [redacted]; check"), problem);
        assertFalse(problem.contains("ABC123"), problem);
    }

    /** A 200 page instead of a stream (a proxy's login page) stops the run before the clock, with its excerpt. */
    @Test
    void aPageInsteadOfAStreamStopsTheRun() throws Exception {
        AtomicInteger requests = new AtomicInteger();
        HttpServer http = server(200, "text/html", "<html><body>Please log in to the proxy</body></html>", requests);
        try {
            String message = refusal("http://127.0.0.1:" + http.getAddress().getPort() + "/v1", "m", "k");
            assertTrue(message.contains("answered the pre-run request with something other than an event stream: "
                    + "expected an event stream but got 'text/html'"), message);
            assertTrue(message.contains("Please log in to the proxy"), message);
            assertEquals(1, requests.get());
        } finally {
            http.stop(0);
        }
    }

    /**
     * An RFC 9457 problem (application/problem+json, as gateways and Java/.NET servers answer): its title and detail
     * are the server's words, refused with a status or sent under a 200 instead of a stream.
     */
    @Test
    void aProblemDetailsBodyIsReadForItsTitleAndDetail() throws Exception {
        AtomicInteger requests = new AtomicInteger();
        HttpServer refused = server(403, "application/problem+json", "{\"type\":\"about:blank\",\"title\":"
                + "\"Forbidden\",\"status\":403,\"detail\":\"the key has no access to model m\"}", requests);
        HttpServer unavailable = server(200, "application/problem+json", "{\"title\":\"Service Unavailable\","
                + "\"status\":503,\"detail\":\"upstream model is loading\"}", requests);
        try {
            String message = refusal("http://127.0.0.1:" + refused.getAddress().getPort() + "/v1", "m", "k");
            assertTrue(message.startsWith("the server refused the pre-run request (one request of one token) with "
                    + "HTTP 403: Forbidden: the key has no access to model m; check the API key in OPENAI_API_KEY"),
                    message);
            message = refusal("http://127.0.0.1:" + unavailable.getAddress().getPort() + "/v1", "m", "k");
            assertTrue(message.contains("answered the pre-run request with something other than an event stream: "
                    + "expected an event stream but got 'application/problem+json' (a proxy's or gateway's error? "
                    + "check the base URL): Service Unavailable: upstream model is loading (status 503 in the body)"),
                    message);
            assertEquals(2, requests.get());
        } finally {
            refused.stop(0);
            unavailable.stop(0);
        }
    }

    private static HttpServer server(int status, String contentType, String body, AtomicInteger requests)
            throws Exception {
        HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/", exchange -> {
            requests.incrementAndGet();
            exchange.getRequestBody().readAllBytes();
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", contentType);
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        http.start();
        return http;
    }
}

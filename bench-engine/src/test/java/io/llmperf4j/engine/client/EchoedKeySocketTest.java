package io.llmperf4j.engine.client;

import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A key of base64 characters (a cloud provider's: {@code /}, {@code +}, {@code =}) echoed by a server in an escaped
 * form, percent-encoded in a redirect's Location or JSON-escaped in an error body, is redacted like its plain text:
 * the real client against a server on 127.0.0.1 that echoes it so.
 */
class EchoedKeySocketTest {

    private static final String KEY = "qa/SECRET+key=0123456789abcdef";

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "401|{\"error\":{\"message\":\"Invalid API key: qa\\/SECRET+key=0123456789abcdef\"}}|",
            "401|{\"error\":{\"message\":\"Invalid API key: qa\\/SECRET\\u002bkey\\u003D0123456789abcdef\"}}|",
            "403|denied for qa%2FSECRET%2Bkey%3d0123456789abcdef|",
            "307||/ok/v1/chat/completions?api_token_for=qa%2FSECRET%2Bkey%3D0123456789abcdef",
    })
    void anEscapedEchoOfTheKeyIsRedacted(int status, String body, String location) throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
            if (location != null) exchange.getResponseHeaders().add("Location", location);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        http.start();
        try (NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(EndpointUrls.chatCompletions(
                "http://127.0.0.1:" + http.getAddress().getPort() + "/v1"), "m").apiKey(Secret.of(KEY)).build())) {
            RequestRecord r = client.send(new RequestSpec(0, "hi", 1, 4)).completion().join();
            assertEquals(status, r.failure().code(), r::toString);
            String message = r.failure().message();
            assertTrue(message.contains("[redacted]"), message);
            assertFalse(message.contains("SECRET"), message);
        } finally {
            http.stop(0);
        }
    }
}

package io.llmperf4j.engine.client;

import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * QA (faults): a 500 body that echoed the key with its first 3 characters cut ({@code secret-ABC123XYZ789}) was
 * recorded, so written to requests.jsonl, the CSV, llmperf's files and the report, verbatim. The real client against
 * a server on 127.0.0.1 that echoes the key as the QA's fault server did: whole, JSON-quoted, URL-encoded and cut;
 * no 8 characters of it may be left in the recorded message.
 */
class EchoedKeyPartSocketTest {

    @ParameterizedTest
    @ValueSource(strings = {"sk-secret-ABC123XYZ789", "AzKey/abc+def0123456789xyz=="})
    void noPartOfTheKeyIsRecorded(String key) throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            String sent = auth.substring("Bearer ".length());
            String message = "Internal error; you sent Authorization: " + auth + " key=" + sent + " json=\\\""
                    + sent.replace("/", "\\/") + "\\\" url=" + URLEncoder.encode(auth, StandardCharsets.UTF_8)
                    + " bare:" + sent.substring(3);
            byte[] bytes = ("{\"error\":{\"message\":\"" + message + "\",\"code\":500}}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(500, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        http.start();
        try (NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(EndpointUrls.chatCompletions(
                "http://127.0.0.1:" + http.getAddress().getPort() + "/v1"), "m").apiKey(Secret.of(key)).build())) {
            RequestRecord r = client.send(new RequestSpec(0, "hi", 1, 4)).completion().join();
            assertEquals(500, r.failure().code(), r::toString);
            String recorded = r.failure().message();
            assertEquals("bare:[redacted]\",\"code\":500}}", recorded.substring(recorded.indexOf("bare:")), recorded);
            for (int i = 0; i + 8 <= key.length(); i++) {
                assertFalse(recorded.contains(key.substring(i, i + 8)), recorded);
            }
        } finally {
            http.stop(0);
        }
    }
}

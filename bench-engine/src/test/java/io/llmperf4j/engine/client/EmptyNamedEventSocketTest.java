package io.llmperf4j.engine.client;

import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.model.FailureKind;
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

/**
 * QA (faults): {@code event: ping} with an empty {@code data:} before a complete stream failed MALFORMED_EVENT with
 * "SSE data event #1 is malformed (not a JSON object): " and nothing quoted. Still MALFORMED_EVENT (llmperf's
 * {@code json.loads} fails on it, and so does OpenAI's own client's), but the message says the data was empty and
 * names the event's type: the real client against a server on 127.0.0.1 that streams so.
 */
class EmptyNamedEventSocketTest {

    private static final String CHUNK = "{\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},"
            + "\"finish_reason\":\"stop\"}]}";

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "'event: ping\\ndata: \\n\\n'|"
                    + "'SSE data event #1 is malformed (empty data in event: ping, not a JSON object): '",
            "'data: \\n\\n'|'SSE data event #1 is malformed (empty data, not a JSON object): '",
            "'event: ping\\ndata: 2024-01-01 00:00:00\\n\\n'|'SSE data event #1 is malformed (invalid JSON: '",
    })
    void anEmptyEventSaysSoAndNamesItsType(String first, String message) throws IOException {
        String stream = first.replace("\\n", "\n") + "data: " + CHUNK + "\n\ndata: [DONE]\n\n";
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] bytes = stream.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        http.start();
        try (NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(EndpointUrls.chatCompletions(
                "http://127.0.0.1:" + http.getAddress().getPort() + "/v1"), "m").build())) {
            RequestRecord r = client.send(new RequestSpec(0, "hi", 1, 4)).completion().join();
            assertEquals(FailureKind.MALFORMED_EVENT, r.failure().kind(), r::toString);
            String recorded = r.failure().message();
            assertEquals(message, recorded.substring(0, Math.min(recorded.length(), message.length())), recorded);
            if (message.contains("empty data")) assertEquals(message, recorded, "nothing to quote after it");
            assertEquals("Hi", r.generatedText(), "the stream goes on after it");
        } finally {
            http.stop(0);
        }
    }
}

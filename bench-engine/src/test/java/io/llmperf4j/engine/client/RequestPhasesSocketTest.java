package io.llmperf4j.engine.client;

import io.llmperf4j.model.RequestPhases;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every API, streaming or not, fills the timing phases of its records in order, on a new connection and on a reused
 * one, against the simulated server over a loopback socket. Orders and sums only: no timing thresholds.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RequestPhasesSocketTest {

    private static SimulatedServer server;

    @BeforeAll
    static void startServer() {
        server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5))
                .interTokenDelay(Duration.ofMillis(1))
                .build());
    }

    @AfterAll
    static void stopServer() {
        if (server != null) server.close();
    }

    private static LlmApi api(String name) {
        switch (name) {
            case "openai": return new OpenAiChatApi(true);
            case "openai-nostream": return new OpenAiChatApi(false);
            case "openai-completions": return new OpenAiCompletionsApi(true);
            case "openai-completions-nostream": return new OpenAiCompletionsApi(false);
            case "anthropic": return new AnthropicMessagesApi();
            case "anthropic-nostream": return new AnthropicMessagesApi(false);
            case "embeddings": return new EmbeddingsApi(s -> List.of("one input", "and another"));
            default: throw new IllegalArgumentException(name);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"openai", "openai-nostream", "openai-completions", "openai-completions-nostream",
            "anthropic", "anthropic-nostream", "embeddings"})
    void phasesAreInOrderOnANewAndOnAReusedConnection(String name) {
        LlmApi api = api(name);
        ClientConfig config = ClientConfig.builder(api.endpoint(server.baseUrl()), "m").maxConnections(1).build();
        RequestSpec spec = new RequestSpec(0, "Tell me a story about the sea and the wind.", 10, 8);
        try (NettyLlmClient client = new NettyLlmClient(config, api)) {
            RequestRecord first = client.send(spec).completion().join();
            RequestRecord second = client.send(spec).completion().join();
            assertEquals(1, client.connectionsOpened(), "the second request reuses the first one's connection");

            assertInOrder(name, first);
            assertTrue(first.connectNanos() >= 0, "the first request opened the connection");
            assertTrue(first.phases().connectionReadyNanos() >= first.connectNanos(),
                    () -> name + ": waited + connect = connection ready, so ready >= connect: " + first);

            assertInOrder(name, second);
            assertEquals(RequestRecord.NEVER, second.connectNanos(), "a reused connection has no connect");
        }
    }

    /** 0 <= connection ready <= request written <= response headers <= first content <= last content <= e2e. */
    static void assertInOrder(String name, RequestRecord r) {
        assertNull(r.failure(), () -> name + ": " + r.failure());
        RequestPhases p = r.phases();
        assertTrue(p.known(), () -> name + ": phases measured");
        assertEquals(RequestRecord.NEVER, p.tlsNanos(), () -> name + ": no TLS over plain TCP");
        long[] chain = {0, p.connectionReadyNanos(), p.requestWrittenNanos(), p.responseHeadersNanos(), r.ttftNanos(),
                r.lastContentNanos(), r.e2eNanos()};
        long previous = 0;
        for (int i = 1; i < chain.length; i++) {
            if (chain[i] == RequestRecord.NEVER && i >= 4) continue; // embeddings have no content events
            long at = chain[i];
            long before = previous;
            int step = i;
            assertTrue(at >= before, () -> name + ": step " + step + " (" + at + ") before the previous one ("
                    + before + "): " + p + " ttft " + r.ttftNanos() + " last " + r.lastContentNanos() + " e2e "
                    + r.e2eNanos());
            previous = at;
        }
    }
}

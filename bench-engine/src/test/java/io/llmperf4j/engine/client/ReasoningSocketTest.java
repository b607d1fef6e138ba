package io.llmperf4j.engine.client;

import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reasoning streamed before the content ({@code delta.reasoning_content}, vLLM style) over a loopback socket: the
 * first reasoning event sets {@code firstReasoningNanos}, the first content event TTFT, and reasoning text never
 * enters the content.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReasoningSocketTest {

    private static final Duration TTFT = Duration.ofMillis(5);
    private static final Duration ITL = Duration.ofMillis(10);
    private static final int REASONING = 4;
    private static final int MAX_TOKENS = 10;
    private static SimulatedServer server;

    @BeforeAll
    static void startServer() {
        server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(TTFT)
                .interTokenDelay(ITL)
                .tokensPerChunk(2)
                .reasoningTokens(REASONING)
                .build());
    }

    @AfterAll
    static void stopServer() {
        if (server != null) server.close();
    }

    private static RequestRecord send(LlmApi api) {
        ClientConfig config = ClientConfig.builder(api.endpoint(server.baseUrl()), "m").build();
        try (NettyLlmClient client = new NettyLlmClient(config, api)) {
            return client.send(new RequestSpec(0, "Think first, then answer.", 10, MAX_TOKENS)).completion().join();
        }
    }

    @Test
    void streamedReasoningComesFirstAndIsTimedApart() {
        RequestRecord r = send(new OpenAiChatApi(true));
        assertNull(r.failure(), () -> "" + r.failure());
        assertTrue(r.firstReasoningNanos() > 0, "reasoning arrived");
        // 4 reasoning tokens in 2 chunks of 2, then content: the first content chunk is due 2 chunk intervals
        // after the first reasoning chunk (due times are absolute, so a late first chunk can shorten the gap)
        // events that arrive in one read share its arrival stamp: a server behind its schedule (a loaded machine)
        // writes the last reasoning chunk and the first content chunk together, so equal stamps are right
        assertTrue(r.firstReasoningNanos() <= r.ttftNanos(),
                () -> "first reasoning " + r.firstReasoningNanos() + " ns after TTFT " + r.ttftNanos() + " ns");
        assertTrue(r.ttftNanos() >= TTFT.toNanos() + 2 * 2 * ITL.toNanos(),
                () -> "TTFT " + r.ttftNanos() + " ns, first reasoning " + r.firstReasoningNanos() + " ns");
        assertEquals(MAX_TOKENS - REASONING, r.generatedText().trim().split(" +").length,
                "only content words: " + r.generatedText());
        assertEquals(3, r.contentEventNanos().length, "6 content tokens in chunks of 2");
        assertEquals(r.generatedText().length(), Arrays.stream(r.contentEventChars()).sum());
        assertTrue(Arrays.stream(r.contentEventChars()).allMatch(c -> c > 0));
    }

    @Test
    void wholeResponseReasoningIsTimedAtItsEnd() {
        RequestRecord r = send(new OpenAiChatApi(false));
        assertNull(r.failure(), () -> "" + r.failure());
        assertEquals(r.e2eNanos(), r.firstReasoningNanos(), "no stream: every first is the end");
        assertEquals(r.e2eNanos(), r.ttftNanos());
        assertEquals(r.generatedText().length(), r.contentEventChars()[0]);
    }

    @Test
    void textCompletionsHaveNoReasoning() {
        RequestRecord r = send(new OpenAiCompletionsApi(true));
        assertNull(r.failure(), () -> "" + r.failure());
        assertEquals(RequestRecord.NEVER, r.firstReasoningNanos());
        assertFalse(r.generatedText().isEmpty());
    }
}

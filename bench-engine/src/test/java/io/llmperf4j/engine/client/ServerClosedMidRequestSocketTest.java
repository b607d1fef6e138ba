package io.llmperf4j.engine.client;

import io.llmperf4j.engine.protocol.ChatCompletionChunkParser;
import io.llmperf4j.engine.protocol.ChunkParser;
import io.llmperf4j.engine.protocol.MalformedChunkException;
import io.llmperf4j.engine.protocol.ParsedChunk;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.server.EventLoopHold;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The simulator closed while a request is in flight, as a server that goes away (a restart, a crash, Ctrl-C on
 * {@code serve}): the real client ends the request at once as CONNECTION_CLOSED, with what it had received, whether
 * the connection was reused or opened for the request, and whether the answer had begun; what completed before keeps
 * its record. The idle timeout is long (30 s) so a hang shows as IDLE_TIMEOUT, never as a duration assertion.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ServerClosedMidRequestSocketTest {

    private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration LONG = Duration.ofHours(1);

    /** In its TTFT: the request was read and holds a sequence, and not a byte of the answer has left. */
    @ParameterizedTest
    @EnumSource(value = ConnectionMode.class, names = {"PRECONNECT", "PER_REQUEST"})
    void aRequestInItsTtftEndsAsAClosedConnection(ConnectionMode mode) throws Exception {
        // 100 ms of prefill per prompt token: a 2-token prompt answers at once, a 10,001-token one in 1,000 s
        SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder().timeToFirstToken(Duration.ZERO)
                .interTokenDelay(Duration.ZERO).prefillPerPromptToken(Duration.ofMillis(100)).build());
        try (NettyLlmClient client = client(server, mode, new ChatCompletionChunkParser())) {
            RequestRecord before = client.send(new RequestSpec(0, "x", 2, 5)).completion().join();
            RequestHandle inFlight = client.send(new RequestSpec(1, "x".repeat(40_000), 10_001, 5));
            awaitGenerating(server);

            server.close();

            RequestRecord r = inFlight.completion().get(60, TimeUnit.SECONDS);
            assertEquals(FailureKind.CONNECTION_CLOSED, r.failure() == null ? null : r.failure().kind(),
                    () -> String.valueOf(r.failure()));
            assertEquals(0, r.dataEventCount());
            assertNull(before.failure(), () -> String.valueOf(before.failure()));
            assertEquals(5, before.generatedText().split(" ").length, before.generatedText());
        } finally {
            server.close();
        }
    }

    /** After its first token: the stream had begun; the token received is kept. */
    @ParameterizedTest
    @EnumSource(value = ConnectionMode.class, names = {"PRECONNECT", "PER_REQUEST"})
    void aStreamAfterItsFirstTokenEndsAsAClosedConnectionKeepingTheToken(ConnectionMode mode) throws Exception {
        SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ZERO).interTokenDelay(LONG).build());
        EventCount events = new EventCount();
        try (NettyLlmClient client = client(server, mode, events)) {
            RequestRecord before = client.send(new RequestSpec(0, "before", 10, 1)).completion().join();
            events.expect(2); // the role event and the first token, which leave together
            RequestHandle inFlight = client.send(new RequestSpec(1, "in flight", 10, 5));
            events.awaitExpected();

            server.close();

            RequestRecord r = inFlight.completion().get(60, TimeUnit.SECONDS);
            assertEquals(FailureKind.CONNECTION_CLOSED, r.failure() == null ? null : r.failure().kind(),
                    () -> String.valueOf(r.failure()));
            assertEquals(2, r.dataEventCount(), "the role event and the first token");
            assertEquals(1, r.generatedText().split(" ").length, r.generatedText());
            assertNull(before.failure(), () -> String.valueOf(before.failure()));
        } finally {
            server.close();
        }
    }

    /**
     * The race a ServerGoneMidRunTest run once hit: the simulator's only event loop was running a task (here the
     * timing listener of a request that just ended, held until the loop's shutdown has begun) when close() began, and
     * the loop stopped without closing the stream it served; the client waited for its timeout.
     */
    @Test
    void aStreamOnAnEventLoopBusyWhenTheServerClosedEndsAsAClosedConnection() throws Exception {
        EventLoopHold hold = new EventLoopHold();
        SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder().ioThreads(1)
                .timeToFirstToken(Duration.ZERO).interTokenDelay(LONG).timingListener(hold).build());
        EventCount events = new EventCount();
        try (NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(
                EndpointUrls.chatCompletions(server.baseUrl()), "m").maxConnections(2).idleTimeout(IDLE_TIMEOUT)
                .build(), events)) {
            events.expect(2); // the stream has begun
            RequestHandle streaming = client.send(new RequestSpec(0, "a long stream", 10, 5));
            events.awaitExpected();
            RequestRecord finished = client.send(new RequestSpec(1, "one token", 10, 1)).completion().join();
            hold.awaitHolding();

            server.close();

            RequestRecord r = streaming.completion().get(60, TimeUnit.SECONDS);
            assertEquals(FailureKind.CONNECTION_CLOSED, r.failure() == null ? null : r.failure().kind(),
                    () -> String.valueOf(r.failure()));
            assertEquals(2, r.dataEventCount());
            assertNull(finished.failure(), () -> String.valueOf(finished.failure()));
        } finally {
            server.close();
        }
    }

    private static NettyLlmClient client(SimulatedServer server, ConnectionMode mode, ChunkParser parser) {
        return new NettyLlmClient(ClientConfig.builder(EndpointUrls.chatCompletions(server.baseUrl()), "m")
                .maxConnections(1).idleTimeout(IDLE_TIMEOUT).connectionMode(mode).build(), parser);
    }

    private static void awaitGenerating(SimulatedServer server) throws InterruptedException {
        long deadlineNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (server.activeSequences() < 1 && System.nanoTime() - deadlineNanos < 0) Thread.sleep(2);
        assertEquals(1, server.activeSequences(), "the request holds a sequence");
    }

    /** The chat parser that also counts the events it parsed, so a test can wait for a stream's first ones. */
    private static final class EventCount implements ChunkParser {
        private final ChatCompletionChunkParser parser = new ChatCompletionChunkParser();
        private volatile CountDownLatch expected = new CountDownLatch(0);

        @Override
        public ParsedChunk parse(byte[] data) throws MalformedChunkException {
            expected.countDown();
            return parser.parse(data);
        }

        /** Counts the next {@code n} events from now. */
        void expect(int n) {
            expected = new CountDownLatch(n);
        }

        void awaitExpected() throws InterruptedException {
            assertTrue(expected.await(30, TimeUnit.SECONDS), "the events expected arrived");
        }
    }

}
